package parreg.device.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.Workers;

/**
 * Reads and writes partition files, choosing the format: a directory, a {@code *.parquet} file or a
 * file that starts with Parquet's magic is Parquet ({@link ParquetPartitionFormat}: columns chosen
 * by name, by default the label {@code y} and every other column); a file that starts with the
 * {@code .prb} magic is binary whatever its name; a {@code .prb} file without it is an error (bad
 * magic); any other file is read as CSV. Writing picks the format from the extension ({@code .prb},
 * else CSV for {@code .csv}). A {@code .prb} file holds binary32 or binary64 values (its header's
 * version, {@link BinaryPartitionFormat}); it is read at its own precision, unless a precision is
 * asked for: then a binary32 file is widened to binary64 (exactly), and a binary64 file asked for
 * in binary32 is refused (it is not rounded: a binary32 run's data are rounded once, from the
 * decimal source).
 */
public final class PartitionFiles {
  /** The two formats. */
  public enum Format {
    CSV(".csv"),
    BINARY(BinaryPartitionFormat.EXTENSION);

    private final String extension;

    Format(String extension) {
      this.extension = extension;
    }

    public String extension() {
      return extension;
    }
  }

  private PartitionFiles() {}

  /**
   * A partition read, and how many of the file's rows were dropped for a missing value ({@link
   * CsvDialect.Missing#DROP}; counted over the whole file, before a {@code --split} slice is cut).
   */
  public record Loaded(Partition partition, long droppedRows) {}

  /** The rows a stream gave its sink, and the rows it dropped for a missing value. */
  public record Streamed(long rows, long droppedRows) {}

  public static Partition read(Path file) throws IOException, DataFormatException {
    return read(file, 0);
  }

  /**
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   */
  public static Partition read(Path file, int expectedFeatures)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return read(file, expectedFeatures, CsvColumns.DEFAULT, RowSlice.ALL);
    }
    if (isBinary(file)) {
      return readBinary(file, expectedFeatures, Workers.defaultThreads());
    }
    return CsvPartitionFormat.read(file, expectedFeatures);
  }

  /**
   * Reads the columns {@code columns} chooses (CSV only: a {@code .prb} file has its own layout)
   * and the rows {@code slice} chooses ({@link RowSlice}); a slice of a {@code .prb} file is read
   * by seeking to it, without its digest sidecar (which describes the whole file).
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   */
  public static Partition read(Path file, int expectedFeatures, CsvColumns columns, RowSlice slice)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return ParquetPartitionFormat.load(file, expectedFeatures, columns, CsvDialect.DEFAULT, slice)
          .partition();
    }
    if (isBinary(file)) {
      requireDefault(file, columns);
      if (slice.whole()) {
        return readBinary(file, expectedFeatures, Workers.defaultThreads());
      }
      return BinaryPartitionFormat.readSlice(file, expectedFeatures, slice);
    }
    return CsvPartitionFormat.read(file, expectedFeatures, columns, slice);
  }

  /**
   * As {@link #read(Path, int, CsvColumns, RowSlice)}, a CSV file read as {@code dialect} says
   * (delimiter, missing values), with the count of rows dropped. A {@code .prb} file has no missing
   * values and no delimiter: a delimiter other than the comma is refused for it.
   */
  public static Loaded load(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSlice slice)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return ParquetPartitionFormat.load(file, expectedFeatures, columns, dialect, slice);
    }
    if (isBinary(file)) {
      requireDefault(file, dialect);
      return new Loaded(read(file, expectedFeatures, columns, slice), 0);
    }
    return CsvPartitionFormat.load(file, expectedFeatures, columns, dialect, slice);
  }

  /**
   * As {@link #load(Path, int, CsvColumns, CsvDialect, RowSlice)}, the values held in {@code
   * precision}: CSV text is rounded once, correctly, to it; a binary32 {@code .prb} file read at
   * {@link parreg.device.Precision#F64} is widened (exactly); a binary64 {@code .prb} file read at
   * {@link parreg.device.Precision#F32} is refused.
   */
  public static Loaded load(
      Path file,
      int expectedFeatures,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice,
      parreg.device.Precision precision)
      throws IOException, DataFormatException {
    if (precision == parreg.device.Precision.F32) {
      if (isBinary(file) && binaryPrecision(file) == parreg.device.Precision.F64) {
        throw BinaryPartitionFormat.binary64Refused(file);
      }
      return load(file, expectedFeatures, columns, dialect, slice);
    }
    if (ParquetPartitionFormat.isParquet(file)) {
      return ParquetPartitionFormat.load64(file, expectedFeatures, columns, dialect, slice);
    }
    if (isBinary(file)) {
      Loaded l = load(file, expectedFeatures, columns, dialect, slice);
      return new Loaded(l.partition().widened(), 0);
    }
    return CsvPartitionFormat.load(file, expectedFeatures, columns, dialect, slice, precision);
  }

  /** Whether a file is a {@code .prb} partition (by its magic; a bad one is refused). */
  public static boolean binary(Path file) throws IOException, DataFormatException {
    return isBinary(file);
  }

  /**
   * The precision of a {@code .prb} file's values, from its header (checked as a read checks it,
   * without the payload), or null for a CSV file (decimal text, read at any precision).
   */
  public static parreg.device.Precision precisionOf(Path file)
      throws IOException, DataFormatException {
    return isBinary(file) ? binaryPrecision(file) : null;
  }

  private static parreg.device.Precision binaryPrecision(Path file)
      throws IOException, DataFormatException {
    return BinaryPartitionFormat.shape(file, 0).precision();
  }

  /**
   * As {@link #stream(Path, int, CsvColumns, CsvDialect, RowSink)}, every value in binary64: CSV
   * text correctly rounded to binary64, a binary32 {@code .prb} file's values widened, a binary64
   * one's as they are.
   */
  public static Streamed stream64(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink64 sink)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return ParquetPartitionFormat.stream64(file, expectedFeatures, columns, dialect, sink);
    }
    if (isBinary(file)) {
      requireDefault(file, columns);
      requireDefault(file, dialect);
      return new Streamed(BinaryPartitionFormat.stream64(file, expectedFeatures, sink), 0);
    }
    return CsvPartitionFormat.stream64(file, expectedFeatures, columns, dialect, sink);
  }

  /** As {@link #stream(Path, int, RowSink)}, the CSV columns chosen by {@code columns}. */
  public static long stream(Path file, int expectedFeatures, CsvColumns columns, RowSink sink)
      throws IOException, DataFormatException {
    return stream(file, expectedFeatures, columns, CsvDialect.DEFAULT, sink).rows();
  }

  /**
   * As {@link #stream(Path, int, RowSink)}, the CSV columns chosen by {@code columns} and read as
   * {@code dialect} says; the rows dropped for a missing value are counted, not streamed.
   */
  public static Streamed stream(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink sink)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return ParquetPartitionFormat.stream(file, expectedFeatures, columns, dialect, sink);
    }
    if (isBinary(file)) {
      requireDefault(file, columns);
      requireDefault(file, dialect);
      return new Streamed(BinaryPartitionFormat.stream(file, expectedFeatures, sink), 0);
    }
    return CsvPartitionFormat.stream(file, expectedFeatures, columns, dialect, sink);
  }

  private static void requireDefault(Path file, CsvColumns columns) throws DataFormatException {
    if (!columns.isDefault()) {
      throw DataFormatException.inFile(
          file,
          "a binary .prb partition has its own layout (features, then y); "
              + columns.describe()
              + " applies to CSV files only");
    }
  }

  private static void requireDefault(Path file, CsvDialect dialect) throws DataFormatException {
    if (!dialect.defaultSyntax()) {
      throw DataFormatException.inFile(
          file,
          "a binary .prb partition has no delimiter; --delimiter "
              + CsvDialect.describe(dialect.delimiter())
              + " applies to CSV files only");
    }
  }

  /**
   * Streams a partition file's rows to {@code sink} in file order (the format chosen as by {@link
   * #read}), with the same checks, without holding the partition in memory.
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   * @return the number of rows
   */
  public static long stream(Path file, int expectedFeatures, RowSink sink)
      throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return stream(file, expectedFeatures, CsvColumns.DEFAULT, sink);
    }
    if (isBinary(file)) {
      return BinaryPartitionFormat.stream(file, expectedFeatures, sink);
    }
    return CsvPartitionFormat.stream(file, expectedFeatures, sink);
  }

  /** Whether the file is read as binary: its magic, or (failing with the reason) a .prb name. */
  private static boolean isBinary(Path file) throws IOException, DataFormatException {
    if (!Files.isRegularFile(file)) {
      if (!Files.exists(file)) {
        throw new NoSuchFileException(file.toString(), null, "no such file");
      }
      throw DataFormatException.inFile(file, "not a regular file");
    }
    byte[] first = new byte[BinaryPartitionFormat.MAGIC.length];
    int got;
    try (InputStream in = Files.newInputStream(file)) {
      got = in.readNBytes(first, 0, first.length);
    }
    if (got == first.length && BinaryPartitionFormat.hasMagic(first)) {
      return true;
    }
    if (formatOf(file) == Format.BINARY) {
      if (got < first.length) {
        throw DataFormatException.atByte(
            file,
            got,
            "truncated: the file ends inside the "
                + BinaryPartitionFormat.HEADER_BYTES
                + "-byte header");
      }
      throw DataFormatException.atByte(file, 0, "not a parreg binary partition (bad magic)");
    }
    return false;
  }

  /**
   * Opens a node's partition file. A {@code .prb} file whose digest sidecar ({@link DigestCache})
   * matches it is checked here only as far as its header and block table (a few kilobytes): its
   * shape and digest are known, and its rows are read on a background thread, with every check of
   * {@link #read}, while the caller goes on (the node starts its actor system, joins and replays
   * its journal meanwhile). Any other file is read here, as by {@link #read}. The rows, once read,
   * must still have the content key the sidecar was matched against, else they fail with "the file
   * changed while it was read". A failure of the background read completes the rows exceptionally
   * with a {@link DataFormatException}, or an {@link java.io.UncheckedIOException} whose message
   * names the file.
   */
  public static PartitionSource open(Path file) throws IOException, DataFormatException {
    if (ParquetPartitionFormat.isParquet(file)) {
      return PartitionSource.of(read(file, 0, CsvColumns.DEFAULT, RowSlice.ALL));
    }
    if (!isBinary(file)) {
      return PartitionSource.of(CsvPartitionFormat.read(file, 0));
    }
    DigestCache.Stamp stamp = DigestCache.stamp(file);
    BinaryPartitionFormat.Shape shape = BinaryPartitionFormat.shape(file, 0);
    String cached = DigestCache.lookup(file, stamp, shape.key()).orElse(null);
    if (cached == null) {
      return PartitionSource.of(readBinary(file, 0, Workers.defaultThreads()));
    }
    CompletableFuture<Partition> rows = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                BinaryPartitionFormat.Loaded l =
                    BinaryPartitionFormat.read(file, shape.features(), Workers.defaultThreads());
                Partition p = l.partition();
                if (!l.key().equals(shape.key()) || p.samples() != shape.samples()) {
                  throw DataFormatException.inFile(
                      file,
                      "the file changed while it was read (its header or block table differs)");
                }
                rows.complete(p.withDigest(cached, null));
              } catch (IOException e) {
                rows.completeExceptionally(
                    new UncheckedIOException(file + ": cannot read (" + e.getMessage() + ")", e));
              } catch (Throwable t) {
                rows.completeExceptionally(t); // DataFormatException; OutOfMemoryError names itself
              }
            },
            "parreg-partition-read");
    reader.setDaemon(true);
    reader.start();
    return PartitionSource.pending(shape.samples(), shape.features(), cached, rows);
  }

  /**
   * Reads a {@code .prb} file on {@code threads} threads; its digest comes from the file's {@link
   * DigestCache} sidecar where that matches the file, else it is computed on first use and then
   * kept there.
   */
  static Partition readBinary(Path file, int expectedFeatures, int threads)
      throws IOException, DataFormatException {
    DigestCache.Stamp stamp = DigestCache.stamp(file);
    BinaryPartitionFormat.Loaded l = BinaryPartitionFormat.read(file, expectedFeatures, threads);
    Partition p = l.partition();
    String cached = DigestCache.lookup(file, stamp, l.key()).orElse(null);
    return p.withDigest(
        cached, cached != null ? null : digest -> DigestCache.store(file, stamp, l.key(), digest));
  }

  /**
   * Writes a partition in the format its name asks for; never overwrites. A {@code .prb} file gets
   * its digest sidecar ({@link DigestCache}) at once, so that its first load need not hash it.
   */
  public static void write(Partition p, Path file) throws IOException {
    if (formatOf(file) == Format.BINARY) {
      BinaryPartitionFormat.Key key = BinaryPartitionFormat.write(p, file);
      DigestCache.store(file, DigestCache.stamp(file), key, p.digest());
    } else {
      CsvPartitionFormat.write(p, file);
    }
  }

  /** The format a file name asks for: {@code .prb} is binary, anything else CSV. */
  public static Format formatOf(Path file) {
    String name =
        file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(BinaryPartitionFormat.EXTENSION) ? Format.BINARY : Format.CSV;
  }
}
