package parreg.device.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import parreg.device.Partition;
import parreg.device.Workers;

/**
 * Parquet partitions: a file (magic {@code PAR1}) or a directory of part files ({@link
 * ParquetTable}), read through parquet-java's page and encoding code without Hadoop ({@link
 * ParquetCodecs}); docs/parquet-reader.md says why this library.
 *
 * <p>Columns are chosen by name as for a CSV header ({@link CsvColumns}: {@code --label}, default
 * {@code y}; {@code --features}, default every other column in schema order); the columns not
 * chosen are never read. A null in a chosen column is a missing value, as an empty CSV cell:
 * refused naming the file, row, row group and column, or its row dropped and counted under {@link
 * CsvDialect.Missing#DROP}. NaN and infinities are refused whatever {@code --na} says, as in CSV.
 *
 * <p>Values. The reader decodes every value to binary64 (int32, float and double exactly; int64 and
 * unsigned int64 correctly rounded beyond 2^53), and the partition builder rounds that to the
 * partition's binary32 ({@code (float)}: correct rounding). A float or double value therefore gives
 * the same bits as a CSV cell holding its exact decimal value, or the shortest text that reads back
 * to it (Java's {@code Float.toString}/{@code Double.toString}, pandas' {@code to_csv}), and the
 * digest, defined on the binary32 rows ({@link parreg.device.PartitionDigest}), is the same for the
 * same numbers in CSV, Parquet and {@code .prb}. (A double whose shortest text lies across a
 * binary32 rounding boundary from the double itself is the one exception: there the text and the
 * double are different numbers.)
 *
 * <p>Row groups are decoded in parallel ({@link Workers}). A {@link RowSlice} is cut from the rows
 * left after dropping; where no null can be dropped (required columns, or chunk statistics that
 * count none), the slice's place is known from the footers and only the row groups it overlaps are
 * decoded.
 */
public final class ParquetPartitionFormat {
  /** The first (and last) four bytes of a Parquet file. */
  static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private static final long VALUE_LIMIT = Integer.MAX_VALUE - 8;

  private ParquetPartitionFormat() {}

  /**
   * Whether {@code file} is read as Parquet: a directory, a file that starts with {@code PAR1}, or
   * a file named {@code *.parquet} (which then fails as "not a readable Parquet file" if it is not
   * one).
   */
  public static boolean isParquet(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      return true;
    }
    if (!Files.isRegularFile(file)) {
      return false;
    }
    String name =
        file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".parquet")) {
      return true;
    }
    byte[] first = new byte[MAGIC.length];
    try (InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(first, 0, first.length) == first.length
          && java.util.Arrays.equals(first, MAGIC);
    }
  }

  /**
   * Reads a partition: the columns {@code columns} chooses, the rows {@code slice} chooses of those
   * left after dropping, missing values as {@code dialect} says (its delimiter must be the
   * default).
   *
   * @param expectedFeatures the d the columns must give, or 0 for any
   */
  public static PartitionFiles.Loaded load(
      Path source, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSlice slice)
      throws IOException, DataFormatException {
    requireDefault(source, dialect);
    ParquetTable t = ParquetTable.open(source, expectedFeatures, columns, true);
    boolean drop = dialect.missing() == CsvDialect.Missing.DROP;
    boolean counted = !drop || t.groups.stream().noneMatch(t::mayHaveNulls);
    int threads = Workers.defaultThreads();
    int d = t.features;
    if (counted) {
      if (t.rows == 0) {
        throw DataFormatException.inFile(source, "no rows (an empty partition)");
      }
      long[] r = slice.whole() ? new long[] {0, t.rows} : slice.range(source, t.rows);
      int m = size(source, r[1] - r[0], d);
      float[] x = new float[m * d];
      float[] y = new float[m];
      List<ParquetTable.Group> overlap = new ArrayList<>();
      for (ParquetTable.Group g : t.groups) {
        if (g.first() < r[1] && g.first() + g.rows() > r[0]) {
          overlap.add(g);
        }
      }
      parallel(
          threads,
          overlap.size(),
          k -> {
            ParquetTable.Decoded dec = t.decode(overlap.get(k));
            ParquetTable.Group g = dec.group();
            int from = (int) Math.max(0, r[0] - g.first());
            int to = (int) Math.min(g.rows(), r[1] - g.first());
            if (dec.missing() != null) {
              for (int i = from; i < to; i++) {
                if (dec.missing()[i] != 0) {
                  throw missing(t, dec, i, drop);
                }
              }
            }
            place(t, dec, from, to, x, y, m, (int) (g.first() + from - r[0]));
          });
      return new PartitionFiles.Loaded(new Partition(m, d, x, y), 0);
    }
    // a null may be dropped anywhere: every group is decoded and compacted before the slice is cut
    float[][][] kept = new float[t.groups.size()][][];
    parallel(
        threads,
        t.groups.size(),
        k -> {
          ParquetTable.Decoded dec = t.decode(t.groups.get(k));
          int n = dec.rows() - dec.nulls();
          float[] gx = new float[n * d];
          float[] gy = new float[n];
          if (dec.missing() == null) {
            place(t, dec, 0, dec.rows(), gx, gy, n, 0);
          } else {
            int at = 0;
            for (int i = 0; i < dec.rows(); i++) {
              if (dec.missing()[i] == 0) {
                place(t, dec, i, i + 1, gx, gy, n, at++);
              }
            }
          }
          kept[k] = new float[][] {gx, gy};
        });
    long total = 0;
    for (float[][] g : kept) {
      total += g[1].length;
    }
    long dropped = t.rows - total;
    if (total == 0) {
      throw CsvRows.empty(source, columns, dropped);
    }
    long[] r = slice.whole() ? new long[] {0, total} : slice.range(source, total);
    int m = size(source, r[1] - r[0], d);
    float[] x = new float[m * d];
    float[] y = new float[m];
    long first = 0;
    for (float[][] g : kept) {
      int n = g[1].length;
      int from = (int) Math.max(0, r[0] - first);
      int to = (int) Math.min(n, r[1] - first);
      for (int i = from; i < to; i++) {
        int dest = (int) (first + i - r[0]);
        for (int j = 0; j < d; j++) {
          x[j * m + dest] = g[0][j * n + i];
        }
        y[dest] = g[1][i];
      }
      first += n;
    }
    return new PartitionFiles.Loaded(new Partition(m, d, x, y), dropped);
  }

  /**
   * As {@link #load}, the values held in binary64 ({@code --precision f64}): every column's values
   * as decoded (float and int32 exactly, int64 correctly rounded), non-finite ones refused. Row
   * groups are decoded one after another.
   */
  public static PartitionFiles.Loaded load64(
      Path source, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSlice slice)
      throws IOException, DataFormatException {
    requireDefault(source, dialect);
    ParquetTable t = ParquetTable.open(source, expectedFeatures, columns, true);
    boolean drop = dialect.missing() == CsvDialect.Missing.DROP;
    int d = t.features;
    List<ParquetTable.Decoded> groups = new ArrayList<>();
    long total = 0;
    for (ParquetTable.Group g : t.groups) {
      ParquetTable.Decoded dec = t.decode(g);
      groups.add(dec);
      total += dec.rows() - (dec.missing() == null ? 0 : dec.nulls());
    }
    long dropped = t.rows - total;
    if (total == 0) {
      throw CsvRows.empty(source, columns, dropped);
    }
    long[] r = slice.whole() ? new long[] {0, total} : slice.range(source, total);
    int m = size(source, r[1] - r[0], d);
    double[] x = new double[m * d];
    double[] y = new double[m];
    long kept = 0; // rows kept before the current one, in table order
    for (ParquetTable.Decoded dec : groups) {
      for (int i = 0; i < dec.rows(); i++) {
        if (dec.missing() != null && dec.missing()[i] != 0) {
          if (!drop) {
            throw missing(t, dec, i, false);
          }
          continue;
        }
        if (kept >= r[0] && kept < r[1]) {
          int dest = (int) (kept - r[0]);
          for (int j = 0; j < d; j++) {
            x[j * m + dest] = finite(t, dec, i, j);
          }
          y[dest] = finite(t, dec, i, d);
        }
        kept++;
      }
    }
    return new PartitionFiles.Loaded(Partition.ofBinary64(m, d, x, y), dropped);
  }

  /** As {@link #stream}, every value in binary64. */
  public static PartitionFiles.Streamed stream64(
      Path source, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink64 sink)
      throws IOException, DataFormatException {
    return walk(
        source,
        expectedFeatures,
        columns,
        dialect,
        d -> {
          sink.begin(d);
          double[] x = new double[d];
          return (i, t, dec, r) -> {
            for (int j = 0; j < d; j++) {
              x[j] = finite(t, dec, r, j);
            }
            sink.row(i, x, finite(t, dec, r, d), () -> t.where(dec.group(), r, -1));
          };
        });
  }

  /** One kept row of a decoded group, the {@code i}-th in table order. */
  private interface KeptRow {
    void row(long i, ParquetTable t, ParquetTable.Decoded dec, int r) throws DataFormatException;
  }

  /** Given d, the handler of every kept row. */
  private interface Walker {
    KeptRow begin(int features) throws DataFormatException;
  }

  /**
   * The rows in table order, one row group decoded at a time; rows with a null are refused or
   * (dropping) counted and left out.
   */
  private static PartitionFiles.Streamed walk(
      Path source, int expectedFeatures, CsvColumns columns, CsvDialect dialect, Walker walker)
      throws IOException, DataFormatException {
    requireDefault(source, dialect);
    ParquetTable t = ParquetTable.open(source, expectedFeatures, columns, true);
    boolean drop = dialect.missing() == CsvDialect.Missing.DROP;
    KeptRow kept = walker.begin(t.features);
    long i = 0;
    long dropped = 0;
    for (ParquetTable.Group g : t.groups) {
      ParquetTable.Decoded dec = t.decode(g);
      for (int r = 0; r < dec.rows(); r++) {
        if (dec.missing() != null && dec.missing()[r] != 0) {
          if (!drop) {
            throw missing(t, dec, r, false);
          }
          dropped++;
          continue;
        }
        kept.row(i++, t, dec, r);
      }
    }
    if (i == 0) {
      throw CsvRows.empty(source, columns, dropped);
    }
    return new PartitionFiles.Streamed(i, dropped);
  }

  /** Value (row r, chosen column c) as decoded, refused where not finite. */
  private static double finite(ParquetTable t, ParquetTable.Decoded dec, int r, int c)
      throws DataFormatException {
    double v = dec.values()[c][r];
    if (!Double.isFinite(v)) {
      throw new DataFormatException(
          t.where(dec.group(), r, c) + " is " + v + ", not a finite number");
    }
    return v;
  }

  /**
   * Streams the rows to {@code sink} in table order, one row group decoded at a time; rows with a
   * null are refused or (dropping) counted and left out.
   */
  public static PartitionFiles.Streamed stream(
      Path source, int expectedFeatures, CsvColumns columns, CsvDialect dialect, RowSink sink)
      throws IOException, DataFormatException {
    return walk(
        source,
        expectedFeatures,
        columns,
        dialect,
        d -> {
          sink.begin(d);
          float[] x = new float[d];
          return (i, t, dec, r) -> {
            for (int j = 0; j < d; j++) {
              x[j] = toFloat(t, dec, r, j);
            }
            sink.row(i, x, toFloat(t, dec, r, d), () -> t.where(dec.group(), r, -1));
          };
        });
  }

  /**
   * Receives the rows of {@link #features}: binary64 values, as {@code predict --x} parses them.
   */
  public interface FeatureRows {
    void row(double[] x, RowSink.Where where) throws DataFormatException;
  }

  /**
   * The feature columns of every row in table order, as binary64 ({@code predict --input}): the
   * label need not exist; a null is refused, and so is a non-finite value.
   *
   * @param expectedFeatures the d the columns must give
   */
  public static long features(
      Path source, int expectedFeatures, CsvColumns columns, FeatureRows rows)
      throws IOException, DataFormatException {
    ParquetTable t = ParquetTable.open(source, expectedFeatures, columns, false);
    int d = t.features;
    double[] x = new double[d];
    long n = 0;
    for (ParquetTable.Group g : t.groups) {
      ParquetTable.Decoded dec = t.decode(g);
      for (int r = 0; r < dec.rows(); r++) {
        if (dec.missing() != null && dec.missing()[r] != 0) {
          throw missing(t, dec, r, false);
        }
        for (int j = 0; j < d; j++) {
          double v = dec.values()[j][r];
          if (!Double.isFinite(v)) {
            throw new DataFormatException(t.where(g, r, j) + " is " + v + ", not a finite number");
          }
          x[j] = v;
        }
        int row = r;
        rows.row(x, () -> t.where(g, row, -1));
        n++;
      }
    }
    return n;
  }

  private interface GroupTask {
    void run(int k) throws IOException, DataFormatException;
  }

  /**
   * {@link Workers#run} with this reader's two checked exceptions kept; of the groups with bad
   * input, the first in table order is the one reported, whatever thread found it first.
   */
  private static void parallel(int threads, int tasks, GroupTask task)
      throws IOException, DataFormatException {
    DataFormatException[] bad = new DataFormatException[tasks];
    try {
      Workers.<Exception>run(
          threads,
          tasks,
          k -> {
            try {
              task.run(k);
            } catch (DataFormatException e) {
              bad[k] = e;
            }
          });
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e); // GroupTask throws no other
    }
    for (DataFormatException e : bad) {
      if (e != null) {
        throw e;
      }
    }
  }

  private static void requireDefault(Path source, CsvDialect dialect) throws DataFormatException {
    if (!dialect.defaultSyntax()) {
      throw DataFormatException.inFile(
          source,
          "a Parquet file has no delimiter; --delimiter "
              + CsvDialect.describe(dialect.delimiter())
              + " applies to CSV files only");
    }
  }

  private static int size(Path source, long rows, int d) throws DataFormatException {
    if (rows * d > VALUE_LIMIT) {
      throw DataFormatException.inFile(
          source,
          rows + " rows of d=" + d + " exceed one partition's limit of " + VALUE_LIMIT + " values");
    }
    return (int) rows;
  }

  /**
   * Rows {@code [from, to)} of a decoded group into feature-major arrays of m rows at {@code at}.
   */
  private static void place(
      ParquetTable t,
      ParquetTable.Decoded dec,
      int from,
      int to,
      float[] x,
      float[] y,
      int m,
      int at)
      throws DataFormatException {
    int d = t.features;
    for (int j = 0; j < d; j++) {
      int base = j * m + at - from;
      for (int i = from; i < to; i++) {
        x[base + i] = toFloat(t, dec, i, j);
      }
    }
    for (int i = from; i < to; i++) {
      y[at - from + i] = toFloat(t, dec, i, d);
    }
  }

  /** Value (row r, chosen column c) rounded to binary32, refused where not finite. */
  private static float toFloat(ParquetTable t, ParquetTable.Decoded dec, int r, int c)
      throws DataFormatException {
    double v = dec.values()[c][r];
    float f = (float) v;
    if (Float.isFinite(f)) {
      return f;
    }
    String where = t.where(dec.group(), r, c);
    if (Double.isFinite(v)) {
      throw new DataFormatException(
          where + " is " + v + ", outside the binary32 range (rounds to infinity)");
    }
    throw new DataFormatException(where + " is " + v + ", not a finite number");
  }

  private static DataFormatException missing(
      ParquetTable t, ParquetTable.Decoded dec, int r, boolean drop) {
    int c = dec.missing()[r] - 1;
    return new DataFormatException(
        t.where(dec.group(), r, c)
            + (drop
                ? ": a null its chunk's statistics deny (a damaged file)"
                : ": a missing value (null); --na drop leaves out the rows that have one"));
  }
}
