package parreg.device.data;

import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import de.siegmar.fastcsv.reader.FieldMismatchStrategy;
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
  private final CsvFieldHandler handler;
  private final CsvReader<Object> reader;
  private final Iterator<Object> records;

  private CsvRecords(Path file, CsvDialect dialect) throws IOException {
    this.file = file;
    this.lineLimit = dialect.lineLimit();
    this.handler = new CsvFieldHandler(lineLimit);
    this.reader =
        CsvReader.builder()
            .fieldSeparator(dialect.delimiter())
            .skipEmptyLines(false)
            .extraFieldStrategy(FieldMismatchStrategy.IGNORE)
            .missingFieldStrategy(FieldMismatchStrategy.IGNORE)
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
  void keep(boolean[] mask, boolean parse) {
    handler.keep(mask, parse);
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

  /**
   * FastCSV's refusal in words of this project. FastCSV tells its cases apart by message only, so
   * they are matched by their text here; CsvQuotingTest and CsvLongLineTest hold the wording.
   */
  private DataFormatException refusal(CsvParseException e) {
    long line = handler.line();
    if (e.getCause() instanceof CsvFieldHandler.TooLong
        || String.valueOf(e.getMessage()).contains("buffer size")) {
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
      String c =
          at >= 0 && m.length() > at + 1 ? m.substring(at, Math.min(m.length(), at + 3)) : "";
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
    return handler.line();
  }

  public int fields() {
    return handler.fields();
  }

  /** An empty line, or one unquoted field of only spaces and tabs. */
  public boolean blank() {
    return handler.blank();
  }

  /**
   * Field {@code k}'s text (a kept field; when parsed, one whose {@link #value} is NaN or
   * infinite).
   */
  public String text(int k) {
    return handler.text(k);
  }

  /**
   * Field {@code k}'s value by {@link Decimals#toFloat} (a kept field, parsed): NaN where the text
   * is not a decimal number, infinite where it rounds to infinity.
   */
  float value(int k) {
    return handler.value(k);
  }

  /** As {@link #value}, by {@link Decimals#toDouble} (records parsed in binary64). */
  double value64(int k) {
    return handler.value64(k);
  }

  /** Whether the records parsed from now on are parsed to binary64 (else binary32). */
  void binary64(boolean wide) {
    handler.binary64(wide);
  }

  /**
   * Whether one of the fields {@code among} is a missing value: empty or {@code NA}. {@code among}
   * is the mask the record was read with, or any mask where every field was kept.
   */
  boolean anyMissing(boolean[] among) {
    return handler.anyMissing(among);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
