package parreg.device;

import java.math.BigDecimal;

/**
 * The contract's solver term (SPEC section 2b): which solver turns the participants' contributions
 * into parameters, in a canonical text that is part of the contract.
 *
 * <ul>
 *   <li>{@code ""}: the seed's learner, fixed-rate gradient descent on raw features (SPEC section
 *       2); an empty term is left out of {@link RunContract#fields()}, so every contract written
 *       before solvers were named keeps its digest.
 *   <li>{@code exact;order=ORDER;solve=SOLVE;l2=L}: one pass computes each participant's sufficient
 *       statistics in the versioned order {@code ORDER}; every node solves the merged statistics
 *       with the versioned code {@code SOLVE}; {@code L} is the ridge penalty as given (a decimal,
 *       applied as the binary64 nearest to it).
 *   <li>{@code gd-standardized/v1;tol=T}: gradient descent in standardized coordinates with the
 *       step length of {@link StandardizedDescent} (the contract's learning rate times 1/L, L a
 *       bound of the standardized Gram's largest eigenvalue), stopping at the first step whose
 *       convergence measure is at most {@code T} ({@code 0}: never, the run goes to its step
 *       limit); {@code T} is a decimal as given.
 *   <li>{@code gd-standardized/v1;tol=T;l2=L}: the same with the ridge penalty {@code L > 0}.
 *   <li>{@code gd-raw/v1;l2=L}: the seed's learner with the ridge penalty {@code L > 0} ({@link
 *       UpdateRule}).
 * </ul>
 *
 * <p>Gradient descent writes its penalty only where it is not zero (a zero penalty is always the
 * text {@code "0"}), so a contract without one keeps its bytes and digest.
 *
 * @param exact whether the solver is the exact one (else fixed-rate gradient descent)
 * @param order the statistics' order version (exact only, else empty)
 * @param solve the solve's version (exact only, else empty)
 * @param l2 the ridge penalty as given, {@code "0"} for none: the loss {@code (1/2n) sum r^2 +
 *     (l2/2) |w|^2} in the features' own units, the intercept not penalised (docs/SOLVER.md)
 * @param tol gradient descent in standardized coordinates with this stopping tolerance (a decimal
 *     as given), or empty for fixed-rate descent on raw features (and for the exact solver)
 */
public record SolverSpec(boolean exact, String order, String solve, String l2, String tol) {
  /** The seed's learner. */
  public static final SolverSpec GD = new SolverSpec(false, "", "", "0");

  /** The name of fixed-rate descent on raw features in a term that carries a penalty. */
  public static final String RAW = "gd-raw/v1";

  /** A solver without the standardized descent's tolerance. */
  public SolverSpec(boolean exact, String order, String solve, String l2) {
    this(exact, order, solve, l2, "");
  }

  public SolverSpec {
    java.util.Objects.requireNonNull(tol, "tol");
    if (exact && !tol.isEmpty()) {
      throw new IllegalArgumentException("the exact solver takes no tolerance");
    }
    if (!tol.isEmpty()) {
      tolValue(tol);
    }
    java.util.Objects.requireNonNull(order, "order");
    java.util.Objects.requireNonNull(solve, "solve");
    java.util.Objects.requireNonNull(l2, "l2");
    if (exact && (order.isEmpty() || solve.isEmpty())) {
      throw new IllegalArgumentException("an exact solver names its order and its solve");
    }
    if (!exact && (!order.isEmpty() || !solve.isEmpty())) {
      throw new IllegalArgumentException("gradient descent names no order and no solve");
    }
    double penalty = l2Value(l2);
    if (!exact && penalty == 0 && !"0".equals(l2)) {
      // one text per rule: a zero penalty is the unpenalised term
      throw new IllegalArgumentException("gradient descent's zero penalty is written 0, got " + l2);
    }
  }

  /** The exact solver with these versions and ridge penalty. */
  public static SolverSpec exact(String order, String solve, String l2) {
    return new SolverSpec(true, order, solve, l2);
  }

  /** Gradient descent in standardized coordinates ({@link StandardizedDescent}) with tolerance. */
  public static SolverSpec standardized(String tol) {
    return new SolverSpec(false, "", "", "0", tol);
  }

  /**
   * Gradient descent in standardized coordinates with tolerance and ridge penalty (a decimal as
   * given; any zero becomes {@code "0"}, the unpenalised term).
   */
  public static SolverSpec standardized(String tol, String l2) {
    return new SolverSpec(false, "", "", canonicalPenalty(l2), tol);
  }

  /**
   * Fixed-rate descent on raw features ({@link UpdateRule}) with ridge penalty, else {@link #GD}.
   */
  public static SolverSpec raw(String l2) {
    return new SolverSpec(false, "", "", canonicalPenalty(l2));
  }

  private static String canonicalPenalty(String l2) {
    return l2Value(l2) == 0 ? "0" : l2;
  }

  /** Whether the solver adds a ridge penalty (a positive {@code l2}). */
  public boolean penalised() {
    return l2Value() > 0;
  }

  /** Whether this is gradient descent in standardized coordinates. */
  public boolean standardized() {
    return !tol.isEmpty();
  }

  /** The stopping tolerance as binary64 (0: none); 0 for every solver but the standardized. */
  public double tolValue() {
    return tol.isEmpty() ? 0.0 : tolValue(tol);
  }

  private static double tolValue(String tol) {
    BigDecimal v;
    try {
      v = new BigDecimal(tol);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("tol '" + tol + "' is not a decimal number");
    }
    if (v.signum() < 0 || v.compareTo(BigDecimal.ONE) >= 0) {
      throw new IllegalArgumentException("tol must be >= 0 and < 1, got " + tol);
    }
    return v.doubleValue();
  }

  /** The ridge penalty as binary64. */
  public double l2Value() {
    return l2Value(l2);
  }

  private static double l2Value(String l2) {
    BigDecimal v;
    try {
      v = new BigDecimal(l2);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("l2 '" + l2 + "' is not a decimal number");
    }
    if (v.signum() < 0) {
      throw new IllegalArgumentException("l2 must be >= 0, got " + l2);
    }
    double d = v.doubleValue();
    if (!Double.isFinite(d)) {
      throw new IllegalArgumentException("l2 " + l2 + " is beyond the binary64 range");
    }
    return d;
  }

  /** The canonical text stored in the contract. */
  public String text() {
    if (exact) {
      return "exact;order=" + order + ";solve=" + solve + ";l2=" + l2;
    }
    String penalty = "0".equals(l2) ? "" : ";l2=" + l2;
    if (tol.isEmpty()) {
      return penalty.isEmpty() ? "" : RAW + penalty;
    }
    return StandardizedDescent.VERSION + ";tol=" + tol + penalty;
  }

  /**
   * Parses a contract's solver term.
   *
   * @throws IllegalArgumentException naming what is malformed
   */
  public static SolverSpec parse(String text) {
    if (text.isEmpty()) {
      return GD;
    }
    String[] parts = text.split(";", -1);
    if (StandardizedDescent.VERSION.equals(parts[0]) && parts.length == 2) {
      return standardized(value(parts[1], "tol", text));
    }
    if (StandardizedDescent.VERSION.equals(parts[0]) && parts.length == 3) {
      return penalisedDescent(
          new SolverSpec(false, "", "", value(parts[2], "l2", text), value(parts[1], "tol", text)),
          text);
    }
    if (RAW.equals(parts[0]) && parts.length == 2) {
      return penalisedDescent(new SolverSpec(false, "", "", value(parts[1], "l2", text)), text);
    }
    if (!"exact".equals(parts[0]) || parts.length != 4) {
      throw new IllegalArgumentException("unknown solver term '" + text + "'");
    }
    String order = value(parts[1], "order", text);
    String solve = value(parts[2], "solve", text);
    String l2 = value(parts[3], "l2", text);
    return new SolverSpec(true, order, solve, l2);
  }

  /** A gradient-descent term carries {@code l2=} only for a positive penalty. */
  private static SolverSpec penalisedDescent(SolverSpec s, String text) {
    if (!s.penalised()) {
      throw new IllegalArgumentException(
          "solver term '" + text + "' names a zero penalty: the term is written without l2=");
    }
    return s;
  }

  private static String value(String part, String key, String text) {
    if (!part.startsWith(key + "=")) {
      throw new IllegalArgumentException("solver term '" + text + "' lacks " + key + "=");
    }
    return part.substring(key.length() + 1);
  }

  /** The short name a user sees: {@code exact} or {@code gd}. */
  public String label() {
    return exact ? "exact" : "gd";
  }
}
