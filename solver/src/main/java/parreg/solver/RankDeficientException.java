package parreg.solver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The statistics do not determine the parameters: some feature columns are (up to the statistics'
 * rounding) linear combinations of others, or constant. The solver refuses rather than drop
 * columns, so a model never silently differs from the one asked for; the caller prints {@link
 * #describe} and exits with status 2.
 */
public final class RankDeficientException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * One collinear feature: {@code column} is explained, up to the relative share {@code residual}
   * of its variance (or of its square sum without an intercept), by the features {@code dependsOn}
   * (with the intercept where fitted); none for a constant (or all-zero) column.
   */
  public record Collinear(int column, int[] dependsOn, double residual) {
    public Collinear {
      dependsOn = dependsOn.clone();
    }

    @Override
    public int[] dependsOn() {
      return dependsOn.clone();
    }
  }

  private final transient List<Collinear> collinear;
  private final boolean bias;

  RankDeficientException(List<Collinear> collinear, boolean bias, String reason) {
    super(reason != null ? reason : describe(collinear, bias, null));
    this.collinear = List.copyOf(collinear);
    this.bias = bias;
  }

  /** The collinear features, in the order the factorisation found them. */
  public List<Collinear> collinear() {
    return collinear;
  }

  /** The features' indices. */
  public int[] columns() {
    return collinear.stream().mapToInt(Collinear::column).toArray();
  }

  /** The message with the caller's feature names (null: {@code x0, x1, ...}). */
  public String describe(List<String> names) {
    return collinear.isEmpty() ? getMessage() : describe(collinear, bias, names);
  }

  private static String describe(List<Collinear> list, boolean bias, List<String> names) {
    List<String> parts = new ArrayList<>();
    for (Collinear c : list) {
      String name = name(names, c.column());
      if (c.dependsOn().length == 0) {
        parts.add(name + (bias ? " is constant" : " is all zero"));
      } else {
        StringBuilder b = new StringBuilder(name).append(" is a linear combination of ");
        int[] on = c.dependsOn();
        for (int i = 0; i < on.length; i++) {
          b.append(i > 0 ? ", " : "").append(name(names, on[i]));
        }
        if (bias) {
          b.append(" and the intercept");
        }
        b.append(String.format(Locale.ROOT, " (unexplained share %.1e)", c.residual()));
        parts.add(b.toString());
      }
    }
    return "the features are collinear: "
        + String.join("; ", parts)
        + ". Remove "
        + (list.size() == 1 ? "that feature" : "those features")
        + " or give --l2 > 0";
  }

  private static String name(List<String> names, int j) {
    return names != null && j < names.size() ? names.get(j) : "x" + j;
  }
}
