package parreg.device.data;

import de.siegmar.fastcsv.reader.CsvCallbackHandler;
import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import de.siegmar.fastcsv.reader.RecordType;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * The records of a CSV file, one at a time: the one reader every command's CSV input goes through
 * (FastCSV, RFC 4180), so that every command has the same definition of a line and of a field.
 *
 * <ul>
 *   <li>A line ends at CR LF, LF or a lone CR, in any mix; a quoted field may span lines (its
 *       record is named by the line it starts on). Every line is read: none is lost to a line end.
 *   <li>A UTF-8 byte-order mark is skipped (a UTF-16 or UTF-32 one selects that encoding);
 *       otherwise the text is UTF-8.
 *   <li>A field in double quotes may hold the delimiter, line ends and doubled quotes; a quote that
 *       is never closed, or text after a closing quote, is refused.
 *   <li>A blank record is an empty line or a line of one unquoted field of spaces and tabs.
 *   <li>A line longer than {@link CsvDialect#LINE_LIMIT} characters, or a field that long, is
 *       refused: memory stays at one line of at most that size.
 * </ul>
 *
 * A field's text is given without its quotes and without the spaces and tabs around it. Only the
 * fields {@link #keep} selects are kept (their text copied out of the library's buffer, or their
 * value parsed there); the others are counted and skipped.
 */
public final class CsvRecords implements Closeable {
  private final Path file;
  private final int lineLimit;
  private final Handler handler = new Handler();
  private final CsvReader<Object> reader;
  private final Iterator<Object> records;

  private CsvRecords(Path file, CsvDialect dialect) throws IOException {
    this.file = file;
    this.lineLimit = dialect.lineLimit();
    this.reader =
        CsvReader.builder()
            .fieldSeparator(dialect.delimiter())
            .skipEmptyLines(false)
            .allowExtraFields(true)
            .allowMissingFields(true)
            .allowUnclosedQuote(false)
            .detectBomHeader(true)
            .maxBufferSize(dialect.lineLimit())
            .build(handler, file, StandardCharsets.UTF_8);
    this.records = reader.iterator();
  }

  /** Opens the file; close it after use. */
  public static CsvRecords open(Path file, CsvDialect dialect) throws IOException {
    return new CsvRecords(file, dialect);
  }

  /**
   * Keeps the fields whose {@code mask} entry is true (fields past its end are skipped), or every
   * field ({@code null}, the default): their text, or with {@code parse} their value ({@link
   * #value}; the text only of a field that is not a finite binary32 number).
   */
  public void keep(boolean[] mask, boolean parse) {
    handler.mask = mask;
    handler.parse = parse;
  }

  /**
   * Reads the next record.
   *
   * @return false at the end of the file
   * @throws DataFormatException naming the file and the record's line: an unclosed quote, text
   *     after a closing quote, a line or field over the limit
   */
  public boolean next() throws IOException, DataFormatException {
    try {
      if (!records.hasNext()) {
        return false;
      }
      records.next();
      return true;
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (CsvParseException e) {
      throw refusal(e);
    }
  }

  private DataFormatException refusal(CsvParseException e) {
    long line = handler.line;
    if (e.getCause() instanceof TooLong || String.valueOf(e.getMessage()).contains("buffer size")) {
      return DataFormatException.atLine(
          file,
          line,
          "the line is longer than the limit of "
              + lineLimit
              + " characters (an unclosed quote, or not a CSV file?)");
    }
    if (e.getCause() instanceof RuntimeException r && !(r instanceof CsvParseException)) {
      throw r;
    }
    if (e.getCause() instanceof Error err) {
      throw err;
    }
    String m = String.valueOf(e.getMessage());
    if (m.startsWith("Unclosed quoted field")) {
      return DataFormatException.atLine(
          file, line, "a quoted field is never closed (the file ends inside its quotes)");
    }
    if (m.startsWith("Unexpected character after closing quote")) {
      int at = m.indexOf('\'');
      String c = at >= 0 && m.length() > at + 1 ? m.substring(at, Math.min(m.length(), at + 3)) : "";
      return DataFormatException.atLine(
          file,
          line,
          "text "
              + c
              + " after a closing quote (RFC 4180: a quoted field ends at its quote; a quote"
              + " inside it is doubled)");
    }
    int cut = m.indexOf(" (record starting at line");
    return DataFormatException.atLine(file, line, cut > 0 ? m.substring(0, cut) : m);
  }

  /** The line the record starts on (1-based). */
  public long line() {
    return handler.line;
  }

  public int fields() {
    return handler.fields;
  }

  /** An empty line, or one unquoted field of only spaces and tabs. */
  public boolean blank() {
    return handler.blank || (handler.fields == 1 && handler.firstBlank);
  }

  /**
   * Field {@code k}'s text (a kept field; when parsed, one whose {@link #value} is NaN or
   * infinite).
   */
  public String text(int k) {
    return new String(handler.chars, handler.start[k], handler.end[k] - handler.start[k]);
  }

  /**
   * Field {@code k}'s value by {@link Decimals#toFloat} (a kept field, parsed): NaN where the text
   * is not a decimal number, infinite where it rounds to infinity.
   */
  float value(int k) {
    if (handler.recordParsed) {
      return handler.values[k];
    }
    return Decimals.toFloat(handler.chars, handler.start[k], handler.end[k]);
  }

  /**
   * Whether one of the fields {@code among} is a missing value: empty or {@code NA}. {@code among}
   * is the mask the record was read with, or any mask where every field was kept.
   */
  boolean anyMissing(boolean[] among) {
    if (handler.recordMask != null) {
      return handler.anyMissing;
    }
    for (int k = 0; k < among.length && k < handler.fields; k++) {
      int n = handler.end[k] - handler.start[k];
      int s = handler.start[k];
      if (among[k] && (n == 0 || (n == 2 && handler.chars[s] == 'N' && handler.chars[s + 1] == 'A'))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  private static final class TooLong extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLong() {
      super(null, null, false, false);
    }
  }

  /**
   * Takes the kept fields out of FastCSV's buffer, trimmed: their text copied, or their value
   * parsed in place; counts the others.
   */
  private final class Handler extends CsvCallbackHandler<Object> {
    boolean[] mask;
    boolean parse;
    long line;
    int fields;
    long length;
    boolean blank;
    boolean firstBlank;
    boolean anyMissing;
    boolean recordParsed;
    boolean[] recordMask;
    char[] chars = new char[256];
    int used;
    int[] start = new int[16];
    int[] end = new int[16];
    float[] values = new float[16];

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
      if (n == 0 || (n == 2 && buf[from] == 'N' && buf[from + 1] == 'A')) {
        anyMissing = true;
      }
      if (k >= start.length) {
        int size = Math.max(k + 1, 2 * start.length);
        start = java.util.Arrays.copyOf(start, size);
        end = java.util.Arrays.copyOf(end, size);
        values = java.util.Arrays.copyOf(values, size);
      }
      if (parse) {
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
}
