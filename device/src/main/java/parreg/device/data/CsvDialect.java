package parreg.device.data;

/**
 * How a CSV file is written and what its missing values mean ({@code --delimiter}, {@code --na}):
 * the field delimiter (one character, default {@code ,}), whether a row with a missing value in a
 * chosen column (an empty cell or {@code NA}, as pandas and R write one) is refused or dropped, and
 * the longest line read.
 *
 * <p>Quoting is RFC 4180's whatever the delimiter: a field in double quotes may hold the delimiter,
 * line ends and doubled quotes; a header's names may be quoted (R's {@code write.csv}). {@code NaN}
 * and {@code Inf} are never missing values: they are refused as non-finite numbers.
 */
public final class CsvDialect {
  /** What a missing value in a chosen column does. */
  public enum Missing {
    /** Refused with the file, line and column (exit 2). */
    REFUSE,
    /** The row is left out and counted. */
    DROP
  }

  /**
   * The longest line (record) read, in characters: 16 Mi. A longer one, or a single field longer
   * than this (often an unclosed quote), is refused naming the file and line, so that no line holds
   * more than a few tens of megabytes of memory whatever the file.
   */
  public static final int LINE_LIMIT = 16 << 20;

  /** Comma-delimited, missing values refused. */
  public static final CsvDialect DEFAULT = new CsvDialect(',', Missing.REFUSE, LINE_LIMIT);

  private final char delimiter;
  private final Missing missing;
  private final int lineLimit;

  private CsvDialect(char delimiter, Missing missing, int lineLimit) {
    this.delimiter = delimiter;
    this.missing = missing;
    this.lineLimit = lineLimit;
  }

  /**
   * @throws IllegalArgumentException naming {@code --delimiter}: a quote, a line end, or a
   *     character that can be part of a number
   */
  public static CsvDialect of(char delimiter, Missing missing) {
    if (delimiter == '"' || delimiter == '\r' || delimiter == '\n') {
      throw new IllegalArgumentException(
          "--delimiter "
              + describe(delimiter)
              + ": a quote or a line end cannot delimit fields (RFC 4180 gives them their meaning)");
    }
    if ((delimiter >= '0' && delimiter <= '9') || "+-.eE".indexOf(delimiter) >= 0) {
      throw new IllegalArgumentException(
          "--delimiter " + describe(delimiter) + ": it can be part of a number");
    }
    return new CsvDialect(delimiter, java.util.Objects.requireNonNull(missing), LINE_LIMIT);
  }

  /** The same dialect with another line limit (tests: a long line without a huge file). */
  CsvDialect withLineLimit(int limit) {
    if (limit < 16) {
      throw new IllegalArgumentException("line limit " + limit);
    }
    return new CsvDialect(delimiter, missing, limit);
  }

  public char delimiter() {
    return delimiter;
  }

  public Missing missing() {
    return missing;
  }

  int lineLimit() {
    return lineLimit;
  }

  /** Whether a .prb file may be read under this dialect: one that changes no CSV syntax. */
  public boolean defaultSyntax() {
    return delimiter == ',';
  }

  /** "','" or "tab", for messages. */
  public static String describe(char c) {
    return c == '\t' ? "tab" : c < ' ' ? String.format("U+%04X", (int) c) : "'" + c + "'";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CsvDialect c
        && c.delimiter == delimiter
        && c.missing == missing
        && c.lineLimit == lineLimit;
  }

  @Override
  public int hashCode() {
    return (delimiter * 31 + missing.hashCode()) * 31 + lineLimit;
  }

  @Override
  public String toString() {
    return "delimiter " + describe(delimiter) + ", missing values " + missing;
  }
}
