package parreg.device.data;

import de.siegmar.fastcsv.reader.CsvCallbackHandler;
import de.siegmar.fastcsv.reader.RecordType;

/**
 * {@link CsvRecords}' callback from FastCSV: takes the kept fields out of the library's buffer,
 * trimmed of spaces and tabs, their text copied or their value parsed in place ({@link
 * Decimals#toFloat}); counts the others; refuses a line over the limit; notes blank records and
 * missing values (empty or {@code NA}) among the kept fields.
 */
final class CsvFieldHandler extends CsvCallbackHandler<Object> {
  /** A line over the limit: thrown through FastCSV, which wraps it. */
  static final class TooLong extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLong() {
      super(null, null, false, false);
    }
  }

  private final int lineLimit;
  private boolean[] mask;
  private boolean parse;
  private long line;
  private int fields;
  private long length;
  private boolean blank;
  private boolean firstBlank;
  private boolean anyMissing;
  private boolean recordParsed;
  private boolean[] recordMask;
  private char[] chars = new char[256];
  private int used;
  private int[] start = new int[16];
  private int[] end = new int[16];
  private float[] values = new float[16];
  private double[] values64 = new double[16];
  private boolean wide;

  CsvFieldHandler(int lineLimit) {
    this.lineLimit = lineLimit;
  }

  /** Which fields the records read from now on keep, and whether they are parsed. */
  void keep(boolean[] mask, boolean parse) {
    this.mask = mask;
    this.parse = parse;
  }

  /**
   * Whether parsed values are binary64 ({@link #value64}) rather than binary32 ({@link #value}).
   */
  void binary64(boolean wide) {
    this.wide = wide;
  }

  long line() {
    return line;
  }

  int fields() {
    return fields;
  }

  boolean blank() {
    return blank || (fields == 1 && firstBlank);
  }

  String text(int k) {
    return new String(chars, start[k], end[k] - start[k]);
  }

  float value(int k) {
    return recordParsed && !wide ? values[k] : Decimals.toFloat(chars, start[k], end[k]);
  }

  double value64(int k) {
    return recordParsed && wide ? values64[k] : Decimals.toDouble(chars, start[k], end[k]);
  }

  boolean anyMissing(boolean[] among) {
    if (recordMask != null) {
      return anyMissing;
    }
    for (int k = 0; k < among.length && k < fields; k++) {
      if (among[k] && missing(chars, start[k], end[k])) {
        return true;
      }
    }
    return false;
  }

  /** Empty or {@code NA}. */
  private static boolean missing(char[] c, int from, int to) {
    int n = to - from;
    return n == 0 || (n == 2 && c[from] == 'N' && c[from + 1] == 'A');
  }

  @Override
  protected RecordType getRecordType() {
    return blank ? RecordType.EMPTY : RecordType.DATA;
  }

  @Override
  protected int getFieldCount() {
    return fields;
  }

  @Override
  protected void beginRecord(long startingLineNumber) {
    line = startingLineNumber;
    fields = 0;
    length = 0;
    used = 0;
    blank = false;
    firstBlank = false;
    anyMissing = false;
    recordParsed = parse;
    recordMask = mask;
  }

  @Override
  protected void addField(char[] buf, int offset, int len, boolean quoted) {
    int k = fields++;
    length += len + 1;
    if (length > lineLimit + 1L) {
      throw new TooLong();
    }
    boolean kept = mask == null || (k < mask.length && mask[k]);
    if (!kept && k > 0) {
      return;
    }
    int from = offset;
    int to = offset + len;
    while (from < to && (buf[from] == ' ' || buf[from] == '\t')) {
      from++;
    }
    while (to > from && (buf[to - 1] == ' ' || buf[to - 1] == '\t')) {
      to--;
    }
    if (k == 0) {
      firstBlank = !quoted && from == to;
      if (!kept) {
        return;
      }
    }
    int n = to - from;
    if (missing(buf, from, to)) {
      anyMissing = true;
    }
    if (k >= start.length) {
      int size = Math.max(k + 1, 2 * start.length);
      start = java.util.Arrays.copyOf(start, size);
      end = java.util.Arrays.copyOf(end, size);
      values = java.util.Arrays.copyOf(values, size);
      values64 = java.util.Arrays.copyOf(values64, size);
    }
    if (parse && wide) {
      double v = Decimals.toDouble(buf, from, to);
      values64[k] = v;
      if (Double.isFinite(v)) {
        return;
      }
    } else if (parse) {
      float v = Decimals.toFloat(buf, from, to);
      values[k] = v;
      if (!Float.isNaN(v) && !Float.isInfinite(v)) {
        return;
      }
    }
    if (used + n > chars.length) {
      chars = java.util.Arrays.copyOf(chars, Math.max(used + n, 2 * chars.length));
    }
    System.arraycopy(buf, from, chars, used, n);
    start[k] = used;
    used += n;
    end[k] = used;
  }

  @Override
  protected void setComment(char[] buf, int offset, int len) {
    // comments are off: never called
  }

  @Override
  protected void setEmpty() {
    blank = true;
  }

  @Override
  protected Object buildRecord() {
    return this;
  }
}
