package parreg.device.data;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import parreg.device.Partition;

/**
 * CSV partitions (SPEC section 5): a header {@code x1,...,xd,y} (exactly these names, in this
 * order; spaces around a name are ignored; names may be quoted) and one row of {@code d + 1}
 * decimal numbers per sample, read through {@link CsvRecords} (RFC 4180; CRLF, LF and CR line ends;
 * a byte-order mark).
 *
 * <p>Each value is a decimal number rounded to binary32 by correct rounding of the decimal text
 * ({@link Decimals#toFloat}), so a value written by {@link Float#toString} reads back to the same
 * bits. Rejected, each with the file and line: a missing or malformed header, a header with the
 * wrong d, a row with too few or too many values, a value that is not a number, {@code NaN} or
 * {@code Infinity}, a finite text that rounds to infinity in binary32 (e.g. {@code 1e39}), a
 * missing value (an empty cell or {@code NA}) unless {@link CsvDialect.Missing#DROP} drops its row,
 * a blank line followed by more data, and a file with no rows (an empty partition). Blank lines at
 * the end are accepted.
 *
 * <p>{@link CsvColumns} chooses other layouts: any header with the label and features chosen by
 * name, or no header with columns chosen by position; {@link RowSlice} reads one participant's
 * contiguous share of a file shared by all; {@link CsvDialect} gives the delimiter and what a
 * missing value does.
 *
 * <p>Reading streams: {@link CsvPartitionLoader} parses straight into the feature-major arrays, so
 * memory stays at the partition's binary32 size (plus one line), whatever the length of the text.
 */
public final class CsvPartitionFormat {
  private static final int BUFFER = 1 << 16;

  private CsvPartitionFormat() {}

  /** Reads a CSV partition, inferring d from the header. */
  public static Partition read(Path file) throws IOException, DataFormatException {
    return read(file, 0);
  }

  /**
   * Reads a CSV partition.
   *
   * @param expectedFeatures the d the header must have, or 0 to accept the header's d
   */
  public static Partition read(Path file, int expectedFeatures)
      throws IOException, DataFormatException {
    return read(file, expectedFeatures, CsvColumns.DEFAULT, RowSlice.ALL);
  }

  /** As {@link #load}, comma-delimited, missing values refused. */
  public static Partition read(Path file, int expectedFeatures, CsvColumns columns, RowSlice slice)
      throws IOException, DataFormatException {
    return load(file, expectedFeatures, columns, CsvDialect.DEFAULT, slice).partition();
  }

  /**
   * Reads a CSV partition: the columns {@code columns} chooses, the rows {@code slice} chooses of
   * the rows left after dropping those with a missing value, the delimiter and missing values as
   * {@code dialect} says ({@link CsvPartitionLoader}).
   *
   * @param expectedFeatures the d the columns must give, or 0 to accept any
   * @return the partition and the rows the whole file dropped
   */
  public static PartitionFiles.Loaded load(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSlice slice)
      throws IOException, DataFormatException {
    return CsvPartitionLoader.load(file, expectedFeatures, columns, dialect, slice);
  }

  /** As {@link #load}, each value correctly rounded to {@code precision}. */
  public static PartitionFiles.Loaded load(
      Path file,
      int expectedFeatures,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice,
      parreg.device.Precision precision)
      throws IOException, DataFormatException {
    return CsvPartitionLoader.load(file, expectedFeatures, columns, dialect, slice, precision);
  }

  /**
   * Streams a CSV partition's rows to {@code sink} in file order, with the checks of {@link #read}
   * (header, ragged rows, non-numbers, non-finite values, blank lines inside, no rows); memory
   * stays at one line, whatever the file's length.
   *
   * @param expectedFeatures the d the header must have, or 0 to accept the header's d
   * @return the number of rows
   */
  public static long stream(Path file, int expectedFeatures, RowSink sink)
      throws IOException, DataFormatException {
    return stream(file, expectedFeatures, CsvColumns.DEFAULT, sink);
  }

  /** As {@link #stream(Path, int, RowSink)}, the columns chosen by {@code columns}. */
  public static long stream(Path file, int expectedFeatures, CsvColumns columns, RowSink sink)
      throws IOException, DataFormatException {
    return stream(file, expectedFeatures, columns, CsvDialect.DEFAULT, sink).rows();
  }

  /**
   * As {@link #stream(Path, int, RowSink)}, the columns chosen by {@code columns}, the delimiter
   * and missing values as {@code dialect} says; the rows dropped are not given to the sink.
   */
  public static PartitionFiles.Streamed stream(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink sink)
      throws IOException, DataFormatException {
    try (CsvRecords records = CsvRecords.open(file, dialect)) {
      CsvRows rows = CsvRows.open(file, records, expectedFeatures, columns, dialect);
      sink.begin(rows.layout().features());
      RowSink.Where where = () -> file + " line " + rows.line();
      long i = 0;
      long dropped = 0;
      for (CsvRows.Found f; (f = rows.next(true)) != CsvRows.Found.END; ) {
        if (f == CsvRows.Found.DROPPED) {
          dropped++;
        } else {
          sink.row(i++, rows.x, rows.y, where);
        }
      }
      if (i == 0) {
        throw CsvRows.empty(file, columns, dropped);
      }
      return new PartitionFiles.Streamed(i, dropped);
    }
  }

  /**
   * As {@link #stream(Path, int, CsvColumns, CsvDialect, RowSink)}, each value correctly rounded to
   * binary64 ({@link Decimals#toDouble}).
   */
  public static PartitionFiles.Streamed stream64(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink64 sink)
      throws IOException, DataFormatException {
    try (CsvRecords records = CsvRecords.open(file, dialect)) {
      CsvRows rows = CsvRows.open(file, records, expectedFeatures, columns, dialect).binary64(true);
      sink.begin(rows.layout().features());
      RowSink.Where where = () -> file + " line " + rows.line();
      long i = 0;
      long dropped = 0;
      for (CsvRows.Found f; (f = rows.next(true)) != CsvRows.Found.END; ) {
        if (f == CsvRows.Found.DROPPED) {
          dropped++;
        } else {
          sink.row(i++, rows.x64, rows.y64, where);
        }
      }
      if (i == 0) {
        throw CsvRows.empty(file, columns, dropped);
      }
      return new PartitionFiles.Streamed(i, dropped);
    }
  }

  /**
   * Writes a partition as CSV (values by {@link Float#toString}, or {@link Double#toString} for a
   * binary64 partition: each reads back to the same bits at its precision).
   */
  public static void write(Partition p, Path file) throws IOException {
    AtomicFiles.writeNew(
        file,
        ch -> {
          BufferedWriter w =
              new BufferedWriter(
                  new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.US_ASCII),
                  BUFFER);
          w.write(header(p.features()));
          w.write('\n');
          int n = p.samples();
          int d = p.features();
          boolean wide = p.precision() == parreg.device.Precision.F64;
          float[] x = wide ? null : p.featureMajor();
          float[] y = wide ? null : p.targets();
          double[] x64 = wide ? p.featureMajor64() : null;
          double[] y64 = wide ? p.targets64() : null;
          StringBuilder sb = new StringBuilder(24 * (d + 1));
          for (int i = 0; i < n; i++) {
            sb.setLength(0);
            for (int j = 0; j < d; j++) {
              if (wide) {
                sb.append(x64[j * n + i]).append(',');
              } else {
                sb.append(x[j * n + i]).append(',');
              }
            }
            if (wide) {
              sb.append(y64[i]).append('\n');
            } else {
              sb.append(y[i]).append('\n');
            }
            w.append(sb);
          }
          w.flush();
        });
  }

  /** The header line for d features, without line end. */
  public static String header(int d) {
    StringBuilder sb = new StringBuilder();
    for (int j = 1; j <= d; j++) {
      sb.append('x').append(j).append(',');
    }
    return sb.append('y').toString();
  }

  /** {@link Decimals#toFloat} on {@code s[from, to)}. */
  static float parseDecimal(String s, int from, int to) {
    return Decimals.toFloat(s, from, to);
  }
}
