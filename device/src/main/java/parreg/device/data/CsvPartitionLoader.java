package parreg.device.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import parreg.device.Partition;

/**
 * Reads a CSV partition, or one participant's slice of a shared file, in one pass of {@link
 * CsvRecords} straight into arrays allocated once at their final size.
 *
 * <p>The size comes from a guess that is never trusted: a byte scan counts the line ends (LF, CR
 * LF, lone CR), an upper bound of the rows, which {@link CsvRows} then reads, one by one, to the
 * end of the file. The guess is exact for a file whose every line is a row, the common case; where
 * the reader finds another number of rows (blank lines at the end, a quoted field over several
 * lines, rows dropped for a missing value), that number is exact and the file is read once more
 * with it. So the rows, their count and a slice's bounds are the reader's alone; the byte scan only
 * sizes the arrays. Memory stays at the partition's binary32 size plus one line.
 *
 * <p>A slice ({@link RowSlice}) is cut from the rows left after dropping; the rows before it are
 * checked for their field count (and, when dropping, for missing values) and skipped, the rows
 * after it too, to the end, so that the count that placed the slice is the reader's.
 */
final class CsvPartitionLoader {
  private static final int BUFFER = 1 << 16;
  private static final long VALUE_LIMIT = Integer.MAX_VALUE - 8;

  private CsvPartitionLoader() {}

  /** One pass: the rows kept and dropped, and the partition where the guess held. */
  private record Pass(long kept, long dropped, Partition partition) {}

  static PartitionFiles.Loaded load(
      Path file, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSlice slice)
      throws IOException, DataFormatException {
    return load(file, expectedFeatures, columns, dialect, slice, parreg.device.Precision.F32);
  }

  /** As above, the values rounded to {@code precision} (binary64: {@link Decimals#toDouble}). */
  static PartitionFiles.Loaded load(
      Path file,
      int expectedFeatures,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice,
      parreg.device.Precision precision)
      throws IOException, DataFormatException {
    boolean wide = precision == parreg.device.Precision.F64;
    long size = Files.size(file);
    long total = lineBound(file, columns.header());
    boolean exact = false;
    while (true) {
      Pass p = pass(file, size, expectedFeatures, columns, dialect, slice, total, exact, wide);
      if (p.kept() == 0) {
        throw CsvRows.empty(file, columns, p.dropped());
      }
      if (p.partition() != null) {
        return new PartitionFiles.Loaded(p.partition(), p.dropped());
      }
      if (exact) {
        throw DataFormatException.inFile(file, "the file changed while it was read");
      }
      total = p.kept();
      exact = true;
    }
  }

  /**
   * Reads every row of the file, parsing and storing those of the slice of {@code total} rows.
   *
   * @param exact whether {@code total} is the count of a previous pass (else a guess)
   * @return the partition, or null where the file has another number of rows than {@code total}
   */
  private static Pass pass(
      Path file,
      long size,
      int expectedFeatures,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice,
      long total,
      boolean exact,
      boolean wide)
      throws IOException, DataFormatException {
    try (CsvRecords records = CsvRecords.open(file, dialect)) {
      CsvRows rows = CsvRows.open(file, records, expectedFeatures, columns, dialect).binary64(wide);
      CsvLayout layout = rows.layout();
      int d = layout.features();
      if (!exact) {
        // a kept row has its chosen fields non-empty, a delimiter between fields and a line end
        int chosen = d + (layout.labelColumn() >= 0 ? 1 : 0);
        total = Math.min(total, (size + 1) / (layout.columns() + chosen));
      } else if (!slice.whole()) {
        slice.range(file, total); // refuses a file too short to split
      }
      boolean sized = total >= slice.parts();
      long from = sized ? slice.from(total) : 0;
      long to = sized ? slice.to(total) : 0;
      if ((to - from) * d > VALUE_LIMIT) {
        if (exact) {
          throw DataFormatException.inFile(
              file,
              (to - from)
                  + " rows of d="
                  + d
                  + " exceed one partition's limit of "
                  + VALUE_LIMIT
                  + " values");
        }
        sized = false; // the guess is too large to allocate: count first
        from = 0;
        to = 0;
      }
      int m = (int) (to - from);
      float[] x = wide ? null : new float[m * d];
      float[] y = wide ? null : new float[m];
      double[] x64 = wide ? new double[m * d] : null;
      double[] y64 = wide ? new double[m] : null;
      long i = 0;
      long dropped = 0;
      CsvRows.BadValue bad = null;
      while (true) {
        CsvRows.Found f;
        try {
          f = rows.next(bad == null && i >= from && i < to);
        } catch (CsvRows.BadValue e) {
          if (exact) {
            throw e;
          }
          bad = e; // its row may not be in the slice the exact count gives: held until then
          i++;
          continue;
        }
        if (f == CsvRows.Found.END) {
          break;
        }
        if (f == CsvRows.Found.DROPPED) {
          dropped++;
          continue;
        }
        if (i >= from && i < to) {
          int r = (int) (i - from);
          if (wide) {
            for (int j = 0; j < d; j++) {
              x64[j * m + r] = rows.x64[j];
            }
            y64[r] = rows.y64;
          } else {
            for (int j = 0; j < d; j++) {
              x[j * m + r] = rows.x[j];
            }
            y[r] = rows.y;
          }
        }
        i++;
      }
      boolean held = sized && i == total;
      if (held && bad != null) {
        throw bad;
      }
      Partition part =
          !held ? null : wide ? Partition.ofBinary64(m, d, x64, y64) : new Partition(m, d, x, y);
      return new Pass(i, dropped, part);
    }
  }

  /**
   * The data rows a file can hold at most: its line ends (LF, CR LF and a lone CR each end one
   * line), plus an unterminated last line, less the header. Bytes, not characters: in any encoding
   * a line end holds a CR or LF byte, so this stays an upper bound.
   */
  static long lineBound(Path file, boolean header) throws IOException {
    long lines = 0;
    byte before = 0; // the byte before the buffer's first
    byte last = '\n';
    byte[] buf = new byte[BUFFER];
    try (InputStream in = Files.newInputStream(file)) {
      for (int r; (r = in.read(buf)) > 0; ) {
        for (int k = 0; k < r; k++) {
          byte b = buf[k];
          if ((b & ~0x0F) != 0) {
            continue; // neither CR nor LF: most bytes, one test
          }
          if (b == '\r' || (b == '\n' && (k > 0 ? buf[k - 1] : before) != '\r')) {
            lines++;
          }
        }
        before = buf[r - 1];
        last = before;
      }
    }
    if (last != '\n' && last != '\r') {
      lines++;
    }
    return header ? Math.max(0, lines - 1) : lines;
  }
}
