package parreg.device.data;

import java.nio.file.Path;
import java.util.List;

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

  static int position(String option, String text) {
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
   * Applies the choice to a file whose first record has the fields {@code first}; see {@link
   * CsvLayout#resolve}.
   */
  public CsvLayout resolve(Path file, List<String> first, boolean needLabel)
      throws DataFormatException {
    return CsvLayout.resolve(this, file, first, needLabel);
  }

  static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
