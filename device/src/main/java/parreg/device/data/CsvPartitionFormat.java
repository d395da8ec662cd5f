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
 * <p>Each value is a decimal number ({@code [+-]digits[.digits][(e|E)[+-]digits]}, also {@code
 * .5} and {@code 5.}), rounded to binary32 by correct rounding of the decimal text ({@link
 * Float#parseFloat}), so a value written by {@link Float#toString} reads back to the same bits.
 * Rejected, each with the file and line: a missing or malformed header, a header with the wrong
 * d, a row with too few or too many values, a value that is not a number, {@code NaN} or {@code
 * Infinity}, a finite text that rounds to infinity in binary32 (e.g. {@code 1e39}), a blank line
 * followed by more data, and a file with no rows (an empty partition). Blank lines at the end are
 * accepted; a UTF-8 byte-order mark and CRLF line ends are accepted.
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
  public static Partition read(Path file, int expectedFeatures) throws IOException, DataFormatException {
    long rows = countRows(file);
    try (BufferedReader in =
        new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8), BUFFER)) {
      String header = in.readLine();
      if (header == null) {
        throw DataFormatException.atLine(file, 1, "missing header x1,...,xd,y (the file is empty)");
      }
      if (!header.isEmpty() && header.charAt(0) == '\uFEFF') {
        header = header.substring(1);
      }
      int d = parseHeader(file, header, expectedFeatures);
      if (rows <= 0) {
        throw DataFormatException.inFile(file, "no data rows after the header (an empty partition)");
      }
      if (rows * d > Integer.MAX_VALUE - 8) {
        throw DataFormatException.inFile(file, rows + " rows of d=" + d + " exceed one partition's limit of " + (Integer.MAX_VALUE - 8) + " values");
      }
      int n = (int) rows;
      float[] x = new float[n * d];
      float[] y = new float[n];
      String expect = "expected " + (d + 1) + " values (" + (d == 1 ? "x1" : "x1..x" + d) + ",y), found ";
      long lineNo = 1;
      long blankAt = 0;
      int i = 0;
      String line;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (isBlank(line)) {
          if (blankAt == 0) {
            blankAt = lineNo;
          }
          continue;
        }
        if (blankAt != 0) {
          throw DataFormatException.atLine(file, blankAt, "blank line inside the data (only trailing blank lines are allowed)");
        }
        if (i >= n) {
          throw DataFormatException.atLine(file, lineNo, "the file changed while it was read");
        }
        int pos = 0;
        int field = 0;
        int len = line.length();
        while (true) {
          int comma = line.indexOf(',', pos);
          int end = comma < 0 ? len : comma;
          if (field > d) {
            throw DataFormatException.atLine(file, lineNo, expect + countFields(line));
          }
          float v = parseValue(file, lineNo, field, d, line, pos, end);
          if (field < d) {
            x[field * n + i] = v;
          } else {
            y[i] = v;
          }
          field++;
          if (comma < 0) {
            break;
          }
          pos = comma + 1;
        }
        if (field != d + 1) {
          throw DataFormatException.atLine(file, lineNo, expect + field);
        }
        i++;
      }
      if (i != n) {
        throw DataFormatException.atLine(file, lineNo, "the file changed while it was read");
      }
      return new Partition(n, d, x, y);
    }
  }

  /** Writes a partition as CSV (values by {@link Float#toString}, which reads back to the same bits). */
  public static void write(Partition p, Path file) throws IOException {
    AtomicFiles.writeNew(
        file,
        ch -> {
          BufferedWriter w = new BufferedWriter(new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.US_ASCII), BUFFER);
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

  private static int parseHeader(Path file, String header, int expectedFeatures) throws DataFormatException {
    String[] names = header.split(",", -1);
    int d = names.length - 1;
    boolean ok = d >= 1 && names[d].strip().equals("y");
    for (int j = 0; ok && j < d; j++) {
      ok = names[j].strip().equals("x" + (j + 1));
    }
    if (!ok) {
      throw DataFormatException.atLine(file, 1, "header must be x1,...,xd,y; found '" + abbreviate(header) + "'");
    }
    if (expectedFeatures > 0 && d != expectedFeatures) {
      throw DataFormatException.atLine(
          file, 1, "expected d=" + expectedFeatures + " features (" + header(expectedFeatures) + "), the header has d=" + d);
    }
    return d;
  }

  private static float parseValue(Path file, long lineNo, int field, int d, String line, int from, int to)
      throws DataFormatException {
    while (from < to && isSpace(line.charAt(from))) {
      from++;
    }
    while (to > from && isSpace(line.charAt(to - 1))) {
      to--;
    }
    String text = line.substring(from, to);
    String name = field < d ? "x" + (field + 1) : "y";
    if (!isDecimal(text)) {
      String t = text.toLowerCase(java.util.Locale.ROOT).replace("+", "").replace("-", "");
      if (t.equals("nan") || t.equals("inf") || t.equals("infinity")) {
        throw DataFormatException.atLine(file, lineNo, name + " is '" + text + "', not a finite number");
      }
      throw DataFormatException.atLine(file, lineNo, name + " is '" + abbreviate(text) + "', not a number");
    }
    float v = Float.parseFloat(text);
    if (Float.isInfinite(v)) {
      throw DataFormatException.atLine(file, lineNo, name + " is '" + abbreviate(text) + "', outside the binary32 range (rounds to infinity)");
    }
    return v;
  }

  /** {@code [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?}. */
  static boolean isDecimal(String s) {
    int i = 0;
    int n = s.length();
    if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      i++;
    }
    int digits = 0;
    while (i < n && isDigit(s.charAt(i))) {
      i++;
      digits++;
    }
    if (i < n && s.charAt(i) == '.') {
      i++;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int exp = 0;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
        exp++;
      }
      if (exp == 0) {
        return false;
      }
    }
    return i == n;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
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

  /** Non-blank lines after the first non-blank line (the header): the row count, by a byte scan. */
  private static long countRows(Path file) throws IOException {
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
    return nonBlank - 1;
  }
}
