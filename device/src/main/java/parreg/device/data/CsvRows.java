package parreg.device.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The data rows of a CSV file under a column layout, after its first record: each non-blank record
 * is checked to have the layout's number of fields, then either dropped (a missing value in a
 * chosen column under {@link CsvDialect.Missing#DROP}), or counted, or parsed into {@link #x} and
 * {@link #y} (binary32, by {@link Decimals#toFloat}). A blank line followed by more data is
 * refused; blank lines at the end are not rows.
 *
 * <p>Counting and parsing see the same rows and drop the same ones, so that a count pass and a
 * parse pass over one file agree on every row's index ({@code --split}).
 */
final class CsvRows {
  /** What {@link #next} found. */
  enum Found {
    ROW,
    DROPPED,
    END
  }

  private final Path file;
  private final CsvRecords records;
  private final CsvLayout layout;
  private final boolean drop;
  private final int[] role;
  private final boolean[] chosen;
  private final String expect;
  private long blankAt;
  private boolean pending;

  /** Feature values of the last parsed row (reused). */
  final float[] x;

  /** Label of the last parsed row (0 without a label column). */
  float y;

  /** Feature values of the last parsed row in binary64 (rows read {@link #binary64}; reused). */
  final double[] x64;

  /** Label of the last parsed row in binary64. */
  double y64;

  private boolean wide;

  /**
   * The rows of a file just opened: reads its first record and applies the column choice to it,
   * checking d.
   *
   * @param expectedFeatures the d the columns must give, or 0 to accept any
   */
  static CsvRows open(
      Path file, CsvRecords records, int expectedFeatures, CsvColumns columns, CsvDialect dialect)
      throws IOException, DataFormatException {
    if (!records.next()) {
      throw DataFormatException.atLine(
          file,
          1,
          columns.isDefault()
              ? "missing header x1,...,xd,y (the file is empty)"
              : columns.header()
                  ? "missing header (the file is empty)"
                  : "no data rows (the file is empty)");
    }
    if (records.blank()) {
      throw DataFormatException.atLine(
          file,
          records.line(),
          columns.header()
              ? "the first line is blank; expected the header"
                  + (columns.isDefault() ? " x1,...,xd,y" : "")
              : "the first line is blank; expected a data row");
    }
    List<String> first = new ArrayList<>(records.fields());
    for (int k = 0; k < records.fields(); k++) {
      first.add(records.text(k));
    }
    CsvLayout layout = columns.resolve(file, first, true);
    int d = layout.features();
    if (expectedFeatures > 0 && d != expectedFeatures) {
      throw DataFormatException.atLine(
          file,
          records.line(),
          layout.spec()
              ? "expected d="
                  + expectedFeatures
                  + " features ("
                  + CsvPartitionFormat.header(expectedFeatures)
                  + "), the header has d="
                  + d
              : "expected d="
                  + expectedFeatures
                  + " features, the columns chosen ("
                  + featureNames(layout)
                  + ") are d="
                  + d);
    }
    return new CsvRows(file, records, layout, dialect, !columns.header());
  }

  /** The refusal of a file without data rows. */
  static DataFormatException empty(Path file, CsvColumns columns, long dropped) {
    if (dropped > 0) {
      return DataFormatException.inFile(
          file,
          "no data rows left after dropping "
              + dropped
              + " row"
              + (dropped == 1 ? "" : "s")
              + " with a missing value (--na drop): an empty partition");
    }
    return columns.header()
        ? DataFormatException.inFile(file, "no data rows after the header (an empty partition)")
        : DataFormatException.inFile(file, "no data rows (an empty partition)");
  }

  private static String featureNames(CsvLayout layout) {
    StringBuilder sb = new StringBuilder();
    for (int c : layout.featureColumns()) {
      sb.append(sb.length() == 0 ? "" : ",").append(layout.names()[c]);
    }
    return CsvColumns.abbreviate(sb.toString());
  }

  /**
   * @param firstIsData whether the record just read (the file's first, {@code --no-header}) is the
   *     first data row, else the rows start at the next record
   */
  private CsvRows(
      Path file, CsvRecords records, CsvLayout layout, CsvDialect dialect, boolean firstIsData) {
    this.file = file;
    this.pending = firstIsData;
    this.records = records;
    this.layout = layout;
    this.drop = dialect.missing() == CsvDialect.Missing.DROP;
    this.role = layout.roles();
    this.chosen = new boolean[layout.columns()];
    for (int k = 0; k < role.length; k++) {
      chosen[k] = role[k] >= 0;
    }
    this.expect = layout.expected();
    this.x = new float[layout.features()];
    this.x64 = new double[layout.features()];
  }

  /** Parses the rows from now on to binary64 ({@link #x64}, {@link #y64}) instead of binary32. */
  CsvRows binary64(boolean wide) {
    this.wide = wide;
    records.binary64(wide);
    return this;
  }

  CsvLayout layout() {
    return layout;
  }

  /** The line of the last record read. */
  long line() {
    return records.line();
  }

  /**
   * Reads up to the next data row.
   *
   * @param parse whether to parse the row's values (else it is only checked for its field count
   *     and, when dropping, for missing values)
   */
  Found next(boolean parse) throws IOException, DataFormatException {
    records.keep(parse || drop ? chosen : NONE, parse);
    while (pending || records.next()) {
      pending = false;
      if (records.blank()) {
        if (blankAt == 0) {
          blankAt = records.line();
        }
        continue;
      }
      if (blankAt != 0) {
        throw DataFormatException.atLine(
            file, blankAt, "blank line inside the data (only trailing blank lines are allowed)");
      }
      if (records.fields() != layout.columns()) {
        throw DataFormatException.atLine(file, records.line(), expect + records.fields());
      }
      if (drop && records.anyMissing(chosen)) {
        return Found.DROPPED;
      }
      if (parse) {
        parseValues();
      }
      return Found.ROW;
    }
    return Found.END;
  }

  private static final boolean[] NONE = new boolean[0];

  private void parseValues() throws BadValue {
    int d = x.length;
    if (wide) {
      parseValues64();
      return;
    }
    for (int k = 0; k < role.length; k++) {
      int slot = role[k];
      if (slot < 0) {
        continue;
      }
      float v = records.value(k);
      if (Float.isNaN(v) || Float.isInfinite(v)) {
        throw refused(k, Float.isInfinite(v));
      }
      if (slot < d) {
        x[slot] = v;
      } else {
        y = v;
      }
    }
  }

  private void parseValues64() throws BadValue {
    int d = x64.length;
    for (int k = 0; k < role.length; k++) {
      int slot = role[k];
      if (slot < 0) {
        continue;
      }
      double v = records.value64(k);
      if (!Double.isFinite(v)) {
        throw refused(k, Double.isInfinite(v));
      }
      if (slot < d) {
        x64[slot] = v;
      } else {
        y64 = v;
      }
    }
  }

  /**
   * A value that is not a finite binary32 (binary64) number: a problem of its row alone (the other
   * errors here are problems of the file), which a reader may hold until it knows the row is its
   * own.
   */
  static final class BadValue extends DataFormatException {
    private static final long serialVersionUID = 1L;

    BadValue(String message) {
      super(message);
    }
  }

  private BadValue refused(int k, boolean infinite) {
    String name = layout.names()[k];
    String text = records.text(k);
    if (infinite) {
      return bad(
          name
              + " is '"
              + abbreviate(text)
              + "', outside the "
              + (wide ? "binary64" : "binary32")
              + " range (rounds to infinity)");
    }
    String t = text.toLowerCase(java.util.Locale.ROOT).replace("+", "").replace("-", "");
    if (t.equals("nan") || t.equals("inf") || t.equals("infinity")) {
      return bad(name + " is '" + text + "', not a finite number");
    }
    if (text.equals("NA")) {
      return bad(name + " is 'NA', a missing value (--na drop leaves out the rows that have one)");
    }
    return bad(name + " is '" + abbreviate(text) + "', not a number");
  }

  private BadValue bad(String what) {
    return new BadValue(file + " line " + records.line() + ": " + what);
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }
}
