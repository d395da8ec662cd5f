package parreg.cli;

import parreg.device.SolverSpec;
import parreg.solver.ExactSolver;
import parreg.solver.GramOrder;

/**
 * {@code --solver exact|gd|auto} and {@code --l2}, resolved for a run's shape (SPEC section 2b):
 * {@code auto} is the exact solver where its statistics fit ({@link #MAX_EXACT_FEATURES} features,
 * as Spark's normal solver) and no mini-batch is asked for, gradient descent otherwise.
 */
final class SolverChoice {
  /** The widest design whose statistics a participant computes and exchanges (Spark's limit). */
  static final int MAX_EXACT_FEATURES = 4096;

  static final String HELP =
      "exact (least squares in one pass over the data), gd (gradient descent: standardized, --tol,"
          + " unless --learning-rate is given) or auto"
          + " (exact where d <= 4,096 and no --batch-size; the default for file data)";

  static final String L2_HELP =
      "ridge penalty lambda >= 0, as in (1/2n) sum r^2 + (lambda/2) |w|^2 in the features' own"
          + " units, for every solver; the intercept is not penalised (default 0)";

  static final String PRECISION_HELP =
      "f32 or f64: the precision the data are held in. f64 (binary64 end to end) is the exact"
          + " solver's only; default f64 for CSV (decimal text) with the exact solver, f32"
          + " otherwise";

  static final String STANDARDIZE_HELP =
      "gradient descent in standardized coordinates (column means and standard deviations from"
          + " one pass), step 1/L with L a bound of the standardized Gram's largest eigenvalue"
          + " (--learning-rate then multiplies it); coefficients in original units. Default on"
          + " for gd unless --learning-rate is given";

  static final String TOL_HELP =
      "standardized gd: stop after the first step where max_j |g_j| / rms(residual) <= TOL"
          + " (standardized gradient g); 0 runs to --steps (default "
          + "1e-7"
          + ")";

  /** The standardized descent's default tolerance. */
  static final String DEFAULT_TOL = "1e-7";

  private SolverChoice() {}

  /**
   * The precision to read a file run's data in, before its solver is known (auto needs d): the one
   * asked for, else binary64 for decimal text where the exact solver may run, else binary32.
   *
   * @param precision the flag's value, or null
   * @throws UserError for an unknown value, or binary64 with gradient descent asked for
   */
  static parreg.device.Precision readPrecision(
      String precision, String solver, boolean decimalText, int batchSize, boolean gdFlagsGiven) {
    if (precision == null) {
      boolean mayBeExact = !"gd".equals(solver) && batchSize == 0 && !gdFlagsGiven;
      return decimalText && mayBeExact ? parreg.device.Precision.F64 : parreg.device.Precision.F32;
    }
    parreg.device.Precision p;
    try {
      p = parreg.device.Precision.parse(precision);
    } catch (IllegalArgumentException e) {
      throw new UserError("--precision: " + e.getMessage());
    }
    if (p == parreg.device.Precision.F64 && "gd".equals(solver)) {
      throw gdBinary64();
    }
    return p;
  }

  /** The refusal of binary64 data for gradient descent. */
  static UserError gdBinary64() {
    return new UserError(
        "--precision f64 applies to the exact solver: gradient descent reads binary32 data"
            + " (its kernels' numerical policy); drop --precision or use --solver exact");
  }

  /**
   * The solver a file run trains with.
   *
   * @param solver the flag's value
   * @param l2 the ridge penalty's text, or null
   * @param features the design's width d
   * @param batchSize the batch size (0: the whole partition)
   * @param gdFlagsGiven whether a gradient-descent-only flag was given (rate, initial weights)
   * @throws UserError naming the flag that does not fit
   */
  static SolverSpec resolve(
      String solver, String l2, int features, int batchSize, boolean gdFlagsGiven) {
    return resolve(solver, l2, features, batchSize, gdFlagsGiven, false, null, null);
  }

  /**
   * The solver a file run trains with, gradient descent standardized or not.
   *
   * @param rateGiven whether {@code --learning-rate} was given (gradient descent then stays on raw
   *     features unless {@code --standardize} is given too)
   * @param standardize {@code --standardize} / {@code --no-standardize}, or null
   * @param tol {@code --tol}, or null
   */
  static SolverSpec resolve(
      String solver,
      String l2,
      int features,
      int batchSize,
      boolean gdFlagsGiven,
      boolean rateGiven,
      Boolean standardize,
      String tol) {
    SolverSpec spec = resolveSolver(solver, l2, features, batchSize, gdFlagsGiven);
    String penalty = spec.l2();
    if (spec.exact()) {
      if (standardize != null || tol != null) {
        throw new UserError(
            "--standardize and --tol apply to gradient descent (--solver gd), not to the exact"
                + " solver");
      }
      return spec;
    }
    boolean standardized = standardize != null ? standardize : !rateGiven;
    if (!standardized) {
      if (tol != null) {
        throw new UserError(
            "--tol applies to gradient descent in standardized coordinates: give --standardize");
      }
      return spec;
    }
    try {
      return SolverSpec.standardized(tol == null ? DEFAULT_TOL : tol.strip(), penalty);
    } catch (IllegalArgumentException e) {
      throw new UserError("--tol: " + e.getMessage());
    }
  }

  private static SolverSpec resolveSolver(
      String solver, String l2, int features, int batchSize, boolean gdFlagsGiven) {
    boolean exact;
    switch (solver) {
      case "exact" -> exact = true;
      case "gd" -> exact = false;
      case "auto" -> exact = features <= MAX_EXACT_FEATURES && batchSize == 0 && !gdFlagsGiven;
      default -> throw new UserError("unknown solver '" + solver + "': use exact, gd or auto");
    }
    String penalty = l2 == null ? "0" : l2.strip();
    if (!exact) {
      try {
        return SolverSpec.raw(penalty);
      } catch (IllegalArgumentException e) {
        throw new UserError("--l2: " + e.getMessage());
      }
    }
    if (batchSize != 0) {
      throw new UserError(
          "--batch-size applies to --solver gd: the exact solver reads each partition once");
    }
    if (gdFlagsGiven) {
      throw new UserError(
          "--learning-rate and --initial-weights apply to --solver gd, not to the exact solver");
    }
    if (features > MAX_EXACT_FEATURES) {
      throw new UserError(
          "--solver exact takes at most "
              + MAX_EXACT_FEATURES
              + " features (the data has "
              + features
              + "); use --solver gd");
    }
    try {
      return SolverSpec.exact(GramOrder.VERSION, ExactSolver.NAME, penalty);
    } catch (IllegalArgumentException e) {
      throw new UserError("--l2: " + e.getMessage());
    }
  }
}
