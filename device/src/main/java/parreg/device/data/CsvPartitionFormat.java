package parreg.device.data;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import parreg.device.Partition;

/**
 * CSV partitions (SPEC section 5): a header {@code x1,...,xd,y} (exactly these names, in this
 * order; spaces around a name are ignored) and one row of {@code d + 1} decimal numbers per sample.
 *
 * <p>Each value is a decimal number ({@code [+-]digits[.digits][(e|E)[+-]digits]}, also {@code .5}
 * and {@code 5.}), rounded to binary32 by correct rounding of the decimal text ({@link
 * Float#parseFloat}), so a value written by {@link Float#toString} reads back to the same bits.
 * Rejected, each with the file and line: a missing or malformed header, a header with the wrong d,
 * a row with too few or too many values, a value that is not a number, {@code NaN} or {@code
 * Infinity}, a finite text that rounds to infinity in binary32 (e.g. {@code 1e39}), a blank line
 * followed by more data, and a file with no rows (an empty partition). Blank lines at the end are
 * accepted; a UTF-8 byte-order mark and CRLF line ends are accepted.
 *
 * <p>{@link CsvColumns} chooses other layouts: any header with the label and features chosen by
 * name, or no header with columns chosen by position; {@link RowSlice} reads one participant's
 * contiguous share of a file shared by all.
 *
 * <p>Reading streams in two passes: the first counts the rows by scanning bytes, the second parses
 * straight into the feature-major arrays, so memory stays at the partition's binary32 size (plus a
 * fixed buffer), whatever the length of the text.
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

  /**
   * Reads a CSV partition: the columns {@code columns} chooses, the rows {@code slice} chooses (a
   * count pass first, then only the slice's rows are parsed; the rows before it are skipped
   * unparsed, the reading stops after it).
   *
   * @param expectedFeatures the d the columns must give, or 0 to accept any
   */
  public static Partition read(Path file, int expectedFeatures, CsvColumns columns, RowSlice slice)
      throws IOException, DataFormatException {
    long total = countRows(file, columns.header());
    long from = 0;
    long rows = total;
    if (!slice.whole()) {
      long[] r = slice.range(file, total);
      from = r[0];
      rows = r[1] - r[0];
    }
    long n0 = rows;
    // The rows are counted first (a byte scan) so that the arrays are allocated once, at size.
    class Fill implements RowSink {
      int n;
      int d;
      float[] x;
      float[] y;

      @Override
      public void begin(int features) throws DataFormatException {
        d = features;
        if (n0 * d > Integer.MAX_VALUE - 8) {
          throw DataFormatException.inFile(
              file,
              n0
                  + " rows of d="
                  + d
                  + " exceed one partition's limit of "
                  + (Integer.MAX_VALUE - 8)
                  + " values");
        }
        n = (int) n0;
        x = new float[n * d];
        y = new float[n];
      }

      @Override
      public void row(long i, float[] v, float target, Where where) throws DataFormatException {
        if (i >= n) {
          throw new DataFormatException(where.describe() + ": the file changed while it was read");
        }
        for (int j = 0; j < d; j++) {
          x[j * n + (int) i] = v[j];
        }
        y[(int) i] = target;
      }
    }
    Fill fill = new Fill();
    long got = stream(file, expectedFeatures, columns, from, from + rows, fill);
    if (got != fill.n) {
      throw DataFormatException.inFile(file, "the file changed while it was read");
    }
    return new Partition(fill.n, fill.d, fill.x, fill.y);
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
    return stream(file, expectedFeatures, columns, 0, Long.MAX_VALUE, sink);
  }

  /**
   * Streams the data rows {@code [from, to)} (0-based, header excluded); the sink numbers them from
   * 0. Rows before {@code from} are skipped unparsed (a blank line among them is still refused).
   */
  private static long stream(
      Path file, int expectedFeatures, CsvColumns columns, long from, long to, RowSink sink)
      throws IOException, DataFormatException {
    try (BufferedReader in =
        new BufferedReader(
            new java.io.InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8),
            BUFFER)) {
      String first = in.readLine();
      if (first == null) {
        throw DataFormatException.atLine(
            file,
            1,
            columns.isDefault()
                ? "missing header x1,...,xd,y (the file is empty)"
                : columns.header()
                    ? "missing header (the file is empty)"
                    : "no data rows (the file is empty)");
      }
      if (!first.isEmpty() && first.charAt(0) == '\uFEFF') {
        first = first.substring(1);
      }
      CsvColumns.Resolved layout = columns.resolve(file, first, true);
      int d = layout.features();
      if (expectedFeatures > 0 && d != expectedFeatures) {
        throw DataFormatException.atLine(
            file,
            1,
            layout.spec()
                ? "expected d="
                    + expectedFeatures
                    + " features ("
                    + header(expectedFeatures)
                    + "), the header has d="
                    + d
                : "expected d="
                    + expectedFeatures
                    + " features, the columns chosen ("
                    + featureNames(layout)
                    + ") are d="
                    + d);
      }
      sink.begin(d);
      int[] role = layout.roles();
      int columnCount = layout.columns();
      float[] x = new float[d];
      String expect = layout.expected();
      long[] lineNo = {columns.header() ? 1 : 0};
      RowSink.Where where = () -> file + " line " + lineNo[0];
      long blankAt = 0;
      long i = 0;
      String line = columns.header() ? in.readLine() : first;
      for (; line != null && i < to; line = in.readLine()) {
        lineNo[0]++;
        if (isBlank(line)) {
          if (blankAt == 0) {
            blankAt = lineNo[0];
          }
          continue;
        }
        if (blankAt != 0) {
          throw DataFormatException.atLine(
              file, blankAt, "blank line inside the data (only trailing blank lines are allowed)");
        }
        if (i < from) {
          i++;
          continue;
        }
        int pos = 0;
        int field = 0;
        int len = line.length();
        float y = 0f;
        while (true) {
          int comma = line.indexOf(',', pos);
          int end = comma < 0 ? len : comma;
          if (field >= columnCount) {
            throw DataFormatException.atLine(file, lineNo[0], expect + countFields(line));
          }
          int slot = role[field];
          if (slot >= 0) {
            float v = parseValue(file, lineNo[0], layout.names()[field], line, pos, end);
            if (slot < d) {
              x[slot] = v;
            } else {
              y = v;
            }
          }
          field++;
          if (comma < 0) {
            break;
          }
          pos = comma + 1;
        }
        if (field != columnCount) {
          throw DataFormatException.atLine(file, lineNo[0], expect + field);
        }
        sink.row(i - from, x, y, where);
        i++;
      }
      if (i == 0) {
        throw columns.header()
            ? DataFormatException.inFile(file, "no data rows after the header (an empty partition)")
            : DataFormatException.inFile(file, "no data rows (an empty partition)");
      }
      return i - from;
    }
  }

  private static String featureNames(CsvColumns.Resolved layout) {
    StringBuilder sb = new StringBuilder();
    for (int c : layout.featureColumns()) {
      sb.append(sb.length() == 0 ? "" : ",").append(layout.names()[c]);
    }
    return CsvColumns.abbreviate(sb.toString());
  }

  /**
   * Writes a partition as CSV (values by {@link Float#toString}, which reads back to the same
   * bits).
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
          float[] x = p.featureMajor();
          float[] y = p.targets();
          StringBuilder sb = new StringBuilder(16 * (d + 1));
          for (int i = 0; i < n; i++) {
            sb.setLength(0);
            for (int j = 0; j < d; j++) {
              sb.append(x[j * n + i]).append(',');
            }
            sb.append(y[i]).append('\n');
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

  private static float parseValue(
      Path file, long lineNo, String name, String line, int from, int to)
      throws DataFormatException {
    while (from < to && isSpace(line.charAt(from))) {
      from++;
    }
    while (to > from && isSpace(line.charAt(to - 1))) {
      to--;
    }
    float v = parseDecimal(line, from, to);
    if (Float.isNaN(v)) {
      String text = line.substring(from, to);
      String t = text.toLowerCase(java.util.Locale.ROOT).replace("+", "").replace("-", "");
      if (t.equals("nan") || t.equals("inf") || t.equals("infinity")) {
        throw DataFormatException.atLine(
            file, lineNo, name + " is '" + text + "', not a finite number");
      }
      throw DataFormatException.atLine(
          file, lineNo, name + " is '" + abbreviate(text) + "', not a number");
    }
    if (Float.isInfinite(v)) {
      throw DataFormatException.atLine(
          file,
          lineNo,
          name
              + " is '"
              + abbreviate(line.substring(from, to))
              + "', outside the binary32 range (rounds to infinity)");
    }
    return v;
  }

  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  /**
   * The decimal text {@code s[from, to)} correctly rounded to binary32, or NaN if it is not a
   * decimal number of the accepted grammar. Infinite when it rounds to infinity.
   *
   * <p>Fast path (Clinger): with at most 15 significant digits {@code M} and a decimal exponent
   * {@code |e| <= 22}, {@code M} and {@code 10^|e|} are exact binary64 values, so one binary64
   * multiplication or division gives {@code D = RN64(v)}, correctly rounded. Rounding {@code D} on
   * to binary32 gives {@code RN32(v)} unless {@code D} lies exactly on a binary32 midpoint: every
   * binary32 midpoint is a binary64 value, and rounding to binary64 is monotonic, so {@code D} is
   * on the same side of each midpoint as {@code v} unless it is the midpoint itself. Those cases,
   * and all others, go to {@link Float#parseFloat}, which rounds correctly. The range of the fast
   * path ({@code 1e-22 .. 9e37}) has no binary32 subnormals and no overflow.
   */
  static float parseDecimal(String s, int from, int to) {
    int i = from;
    boolean neg = false;
    if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      neg = s.charAt(i) == '-';
      i++;
    }
    long m = 0;
    int exp10 = 0;
    int digits = 0;
    boolean exact = true;
    final long limit = 100_000_000_000_000L; // m < 1e14 before *10 + 9 keeps m < 1e15 < 2^53
    char c;
    while (i < to && (c = s.charAt(i)) >= '0' && c <= '9') {
      if (m < limit) {
        m = m * 10 + (c - '0');
      } else {
        exact = false;
      }
      digits++;
      i++;
    }
    if (i < to && s.charAt(i) == '.') {
      i++;
      while (i < to && (c = s.charAt(i)) >= '0' && c <= '9') {
        if (m < limit) {
          m = m * 10 + (c - '0');
          exp10--;
        } else {
          exact = false;
        }
        digits++;
        i++;
      }
    }
    if (digits == 0) {
      return Float.NaN;
    }
    if (i < to && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      boolean eneg = false;
      if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        eneg = s.charAt(i) == '-';
        i++;
      }
      int e = 0;
      int ed = 0;
      while (i < to && (c = s.charAt(i)) >= '0' && c <= '9') {
        if (e < 100_000) {
          e = e * 10 + (c - '0');
        }
        ed++;
        i++;
      }
      if (ed == 0) {
        return Float.NaN;
      }
      exp10 += eneg ? -e : e;
    }
    if (i != to) {
      return Float.NaN;
    }
    if (exact) {
      if (m == 0) {
        return neg ? -0f : 0f;
      }
      if (exp10 >= -22 && exp10 <= 22) {
        double dv = exp10 >= 0 ? (double) m * POW10[exp10] : (double) m / POW10[-exp10];
        long bits = Double.doubleToRawLongBits(dv);
        if ((bits & ((1L << 29) - 1)) != (1L << 28)) {
          float f = (float) dv;
          return neg ? -f : f;
        }
      }
    }
    return Float.parseFloat(s.substring(from, to));
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r';
  }

  private static boolean isBlank(String line) {
    for (int k = 0; k < line.length(); k++) {
      if (!isSpace(line.charAt(k))) {
        return false;
      }
    }
    return true;
  }

  private static int countFields(String line) {
    int c = 1;
    for (int k = line.indexOf(','); k >= 0; k = line.indexOf(',', k + 1)) {
      c++;
    }
    return c;
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }

  /**
   * Non-blank lines after the first non-blank line (the header), or all of them: the row count, by
   * a byte scan.
   */
  private static long countRows(Path file, boolean header) throws IOException {
    long nonBlank = 0;
    boolean lineHasData = false;
    byte[] buf = new byte[BUFFER];
    try (InputStream in = Files.newInputStream(file)) {
      int r;
      while ((r = in.read(buf)) > 0) {
        for (int k = 0; k < r; k++) {
          byte b = buf[k];
          if (b == '\n') {
            if (lineHasData) {
              nonBlank++;
            }
            lineHasData = false;
          } else if (b != ' ' && b != '\t' && b != '\r') {
            lineHasData = true;
          }
        }
      }
    }
    if (lineHasData) {
      nonBlank++;
    }
    return header ? nonBlank - 1 : nonBlank;
  }
}
