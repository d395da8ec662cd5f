package parreg.solver;

import java.util.List;

/**
 * A solved system: the {@link Solution} and what the training summary is computed from (the scaled
 * system, its factor, the double-double weights and intercept before rounding). Not serialised: the
 * statistics and the solver's name recompute it, bit for bit.
 */
public final class LeastSquaresFit {
  final ScaledSystem system;
  final CholeskyFactor factor;
  final SolverOptions options;
  final int threads;
  final double[] wh;
  final double[] wl;
  final double b0h;
  final double b0l;
  private final Solution solution;

  LeastSquaresFit(
      ScaledSystem system,
      CholeskyFactor factor,
      SolverOptions options,
      int threads,
      double[] wh,
      double[] wl,
      double b0h,
      double b0l,
      Solution solution) {
    this.system = system;
    this.factor = factor;
    this.options = options;
    this.threads = threads;
    this.wh = wh;
    this.wl = wl;
    this.b0h = b0h;
    this.b0l = b0l;
    this.solution = solution;
  }

  public Solution solution() {
    return solution;
  }

  /**
   * The training summary; {@code names} are the features' names (null: {@code x0, x1, ...}), the
   * intercept is {@code (intercept)}.
   */
  public RegressionSummary summary(List<String> names) {
    return SummaryCalculator.of(this, names);
  }
}
