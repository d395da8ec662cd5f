package parreg.device.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which CSV columns are the label and the features ({@code --label}, {@code --features}, {@code
 * --no-header}).
 *
 * <ul>
 *   <li>Default (no option): the header must be exactly {@code x1,...,xd,y} (SPEC section 5).
 *   <li>With a header and {@code --label}/{@code --features}: columns are chosen by header name
 *       (spaces around a name ignored). The label defaults to the column {@code y}; the features
 *       default to every other column, in file order; {@code --features} gives them in the order
 *       the model's weights take. Columns chosen by neither are skipped (never parsed): an id or a
 *       text column may stay in the file.
 *   <li>{@code --no-header}: the first line is data; columns are chosen by 0-based position (the
 *       convention of pandas, XGBoost and LightGBM, and of participant ids here). The label
 *       defaults to the last column, the features to every other column.
 * </ul>
 *
 * @param header whether the first line is a header
 * @param label the label column's name (header) or 0-based position (no header), or null for the
 *     default
 * @param features the feature columns likewise, or null for every column but the label
 */
public record CsvColumns(boolean header, String label, List<String> features) {
  /** The SPEC's layout: header {@code x1,...,xd,y}. */
  public static final CsvColumns DEFAULT = new CsvColumns(true, null, null);

  /**
   * Checks what can be checked without the file: positions are non-negative integers (without a
   * header), no feature is named twice, the label is not among the features.
   *
   * @throws IllegalArgumentException with a one-line message naming the option
   */
  public CsvColumns {
    features = features == null ? null : List.copyOf(features.stream().map(String::strip).toList());
    label = label == null ? null : label.strip();
    if (!header) {
      if (label != null) {
        position("--label", label);
      }
      if (features != null) {
        for (String f : features) {
          position("--features", f);
        }
      }
    }
    if (features != null) {
      if (features.isEmpty()) {
        throw new IllegalArgumentException("--features: no column given");
      }
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (String f : features) {
        String key = header ? f : String.valueOf(position("--features", f));
        if (!seen.add(key)) {
          throw new IllegalArgumentException("--features: column '" + f + "' is given twice");
        }
      }
      if (label != null
          && seen.contains(header ? label : String.valueOf(position("--label", label)))) {
        throw new IllegalArgumentException(
            "--label '"
                + label
                + "' is also among --features; a column is either the label or a feature");
      }
    }
  }

  public boolean isDefault() {
    return header && label == null && features == null;
  }

  /** The options as a user would type them, for messages ("" for the default). */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (!header) {
      sb.append("--no-header ");
    }
    if (label != null) {
      sb.append("--label ").append(label).append(' ');
    }
    if (features != null) {
      sb.append("--features ").append(String.join(",", features)).append(' ');
    }
    return sb.toString().strip();
  }

  private static int position(String option, String text) {
    try {
      int p = Integer.parseInt(text);
      if (p >= 0) {
        return p;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(
        option
            + " '"
            + text
            + "': with --no-header, columns are given by 0-based position (0, 1, ...)");
  }

  /**
   * The choice applied to one file.
   *
   * @param columns how many values every line has
   * @param featureColumns the column of feature j, for j = 0..d-1
   * @param labelColumn the label's column, or -1 (none: {@code predict})
   * @param names each column's name for messages: the header's, or {@code column K} (0-based)
   * @param spec whether this is the SPEC's default layout (for its messages)
   */
  public record Resolved(
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
  public Resolved resolve(Path file, List<String> first, boolean needLabel)
      throws DataFormatException {
    String[] cells = first.toArray(new String[0]);
    int columns = cells.length;
    if (isDefault()) {
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
                + abbreviate(String.join(",", cells))
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
      return new Resolved(columns, fc, d, names, true);
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
      labelColumn = column(file, label, "--label", names, byName, columns);
    } else if (!header) {
      labelColumn = needLabel ? columns - 1 : -1;
    } else if (byName.containsKey("y")) {
      labelColumn = column(file, "y", "the label (default y)", names, byName, columns);
    } else if (needLabel) {
      throw DataFormatException.atLine(
          file,
          1,
          "the header has no column 'y'; name the label column with --label (columns: "
              + abbreviate(String.join(",", names))
              + ")");
    } else {
      labelColumn = -1;
    }
    List<Integer> fc = new ArrayList<>();
    if (features != null) {
      for (String f : features) {
        fc.add(column(file, f, "--features", names, byName, columns));
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
    return new Resolved(
        columns, fc.stream().mapToInt(Integer::intValue).toArray(), labelColumn, names, false);
  }

  private int column(
      Path file,
      String key,
      String option,
      String[] names,
      Map<String, Integer> byName,
      int columns)
      throws DataFormatException {
    if (!header) {
      int p = position(option, key);
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
              + abbreviate(String.join(",", names))
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

  static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
