package parreg.device.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link CsvColumns} choice applied to one file: which of its columns are the features, in the
 * model's order, and which is the label, with each column's name for messages.
 *
 * @param columns how many values every line has
 * @param featureColumns the column of feature j, for j = 0..d-1
 * @param labelColumn the label's column, or -1 (none: {@code predict})
 * @param names each column's name for messages: the header's, or {@code column K} (0-based)
 * @param spec whether this is the SPEC's default layout (for its messages)
 */
public record CsvLayout(
    int columns, int[] featureColumns, int labelColumn, String[] names, boolean spec) {
  public int features() {
    return featureColumns.length;
  }

  /** For each column: the feature slot j, {@code features()} for the label, or -1 (skipped). */
  int[] roles() {
    int[] role = new int[columns];
    java.util.Arrays.fill(role, -1);
    for (int j = 0; j < featureColumns.length; j++) {
      role[featureColumns[j]] = j;
    }
    if (labelColumn >= 0) {
      role[labelColumn] = featureColumns.length;
    }
    return role;
  }

  /** "expected N values (...)" for a ragged row. */
  String expected() {
    int d = featureColumns.length;
    if (spec) {
      return "expected " + (d + 1) + " values (" + (d == 1 ? "x1" : "x1..x" + d) + ",y), found ";
    }
    return "expected "
        + columns
        + " values ("
        + (names[0].startsWith("column ") ? "the columns of line 1" : "the header's columns")
        + "), found ";
  }

  /**
   * Applies the choice to a file whose first record has the fields {@code first} (its header's
   * names, or its first row without one; quotes removed, as {@link CsvRecords} gives them).
   *
   * @param needLabel whether a label column must exist (training, evaluation) or is optional
   *     (prediction)
   * @throws DataFormatException naming the file and line 1: an unknown or ambiguous column name, a
   *     position beyond the line, a header not {@code x1,...,xd,y} by default, no feature left
   */
  static CsvLayout resolve(CsvColumns choice, Path file, List<String> first, boolean needLabel)
      throws DataFormatException {
    boolean header = choice.header();
    String label = choice.label();
    List<String> features = choice.features();
    String[] cells = first.toArray(new String[0]);
    int columns = cells.length;
    if (choice.isDefault()) {
      int d = columns - 1;
      boolean ok = d >= 1 && cells[d].strip().equals("y");
      for (int j = 0; ok && j < d; j++) {
        ok = cells[j].strip().equals("x" + (j + 1));
      }
      if (!ok) {
        throw DataFormatException.atLine(
            file,
            1,
            "header must be x1,...,xd,y; found '"
                + CsvColumns.abbreviate(String.join(",", cells))
                + "' (or choose columns by name with --label/--features, or use --no-header)"
                + delimiterHint(cells));
      }
      int[] fc = new int[d];
      String[] names = new String[columns];
      for (int j = 0; j < d; j++) {
        fc[j] = j;
        names[j] = "x" + (j + 1);
      }
      names[d] = "y";
      return new CsvLayout(columns, fc, d, names, true);
    }
    String[] names = new String[columns];
    Map<String, Integer> byName = new HashMap<>();
    for (int k = 0; k < columns; k++) {
      names[k] = header ? cells[k].strip() : "column " + k;
      if (header) {
        Integer before = byName.putIfAbsent(names[k], k);
        if (before != null) {
          byName.put(names[k], -1 - before); // ambiguous: an error only if it is chosen
        }
      }
    }
    int labelColumn;
    if (label != null) {
      labelColumn = column(header, file, label, "--label", names, byName, columns);
    } else if (!header) {
      labelColumn = needLabel ? columns - 1 : -1;
    } else if (byName.containsKey("y")) {
      labelColumn = column(header, file, "y", "the label (default y)", names, byName, columns);
    } else if (needLabel) {
      throw DataFormatException.atLine(
          file,
          1,
          "the header has no column 'y'; name the label column with --label (columns: "
              + CsvColumns.abbreviate(String.join(",", names))
              + ")");
    } else {
      labelColumn = -1;
    }
    List<Integer> fc = new ArrayList<>();
    if (features != null) {
      for (String f : features) {
        fc.add(column(header, file, f, "--features", names, byName, columns));
      }
    } else {
      for (int k = 0; k < columns; k++) {
        if (k != labelColumn) {
          fc.add(k);
        }
      }
    }
    if (fc.isEmpty()) {
      throw DataFormatException.atLine(
          file, 1, "no feature column: the line has only the label column " + names[labelColumn]);
    }
    return new CsvLayout(
        columns, fc.stream().mapToInt(Integer::intValue).toArray(), labelColumn, names, false);
  }

  private static int column(
      boolean header,
      Path file,
      String key,
      String option,
      String[] names,
      Map<String, Integer> byName,
      int columns)
      throws DataFormatException {
    if (!header) {
      int p = CsvColumns.position(option, key);
      if (p >= columns) {
        throw DataFormatException.atLine(
            file,
            1,
            option
                + " "
                + p
                + " is beyond the line's "
                + columns
                + " columns (0.."
                + (columns - 1)
                + ")");
      }
      return p;
    }
    Integer k = byName.get(key);
    if (k == null) {
      throw DataFormatException.atLine(
          file,
          1,
          option
              + ": no column named '"
              + key
              + "' in the header (columns: "
              + CsvColumns.abbreviate(String.join(",", names))
              + ")"
              + delimiterHint(names));
    }
    if (k < 0) {
      int firstAt = -1 - k;
      int second = -1;
      for (int c = firstAt + 1; c < names.length && second < 0; c++) {
        if (names[c].equals(key)) {
          second = c;
        }
      }
      throw DataFormatException.atLine(
          file,
          1,
          option
              + ": column name '"
              + key
              + "' appears twice in the header (columns "
              + firstAt
              + " and "
              + second
              + ", 0-based)");
    }
    return k;
  }

  /**
   * A hint where a one-column header holds a common delimiter: the file is likely delimited by it
   * and read with another.
   */
  private static String delimiterHint(String[] cells) {
    if (cells.length != 1) {
      return "";
    }
    for (char c : new char[] {';', '\t', '|', ','}) {
      if (cells[0].indexOf(c) >= 0) {
        return "; the header is one column holding "
            + CsvDialect.describe(c)
            + ": is the file delimited by it (--delimiter)?";
      }
    }
    return "";
  }
}
