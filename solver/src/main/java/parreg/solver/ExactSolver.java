package parreg.solver;

import java.util.List;

/**
 * The exact solver, version {@value #NAME}: the centred, ridge-augmented normal equations scaled to
 * unit diagonal ({@link ScaledSystem}), factored by pivoted Cholesky in double-double ({@link
 * PivotedCholesky}), solved in double-double, the weights unscaled and the intercept {@code mu_y -
 * sum_j w_j mu_j} formed in double-double, and each parameter rounded once to binary64.
 *
 * <p>Collinear or constant features ({@link ScaledSystem}'s tolerances) are refused with a {@link
 * RankDeficientException} naming them, as are fewer samples than parameters. The thread count only
 * splits the factorisation's rows; it never changes a bit.
 */
public final class ExactSolver implements LeastSquaresSolver {
  /** The solver's versioned name, as the run contract carries it. */
  public static final String NAME = "dd-pivoted-cholesky/v1";

  private final int threads;

  public ExactSolver() {
    this(1);
  }

  public ExactSolver(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1: " + threads);
    }
    this.threads = threads;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Solution solve(GramStats stats, SolverOptions options) {
    return fit(stats, options).solution();
  }

  /** The solution with what the training summary needs (the factor and the unrounded fit). */
  public LeastSquaresFit fit(GramStats stats, SolverOptions options) {
    int d = stats.features();
    int params = d + (options.bias() ? 1 : 0);
    if (Long.compareUnsigned(stats.mass(), params) < 0 || stats.mass() == 0) {
      throw new RankDeficientException(
          List.of(),
          options.bias(),
          Long.toUnsignedString(stats.mass())
              + " samples cannot determine "
              + params
              + " parameters");
    }
    ScaledSystem sys = new ScaledSystem(stats, options);
    double norm1 = sys.norm1();
    PivotedCholesky pc = PivotedCholesky.factor(sys.aH, sys.aL, sys.tau, threads);
    if (!pc.rejected().isEmpty()) {
      throw new RankDeficientException(pc.rejected(), options.bias(), null);
    }
    CholeskyFactor f = pc.factor();
    double[] zh = new double[d];
    double[] zl = new double[d];
    f.solve(sys.bH, sys.bL, zh, zl);
    double[] out = new double[2];
    double[] wh = new double[d];
    double[] wl = new double[d];
    double[] params64 = new double[params];
    for (int j = 0; j < d; j++) {
      DoubleDouble.div(zh[j], zl[j], sys.scaleH[j], sys.scaleL[j], out);
      wh[j] = out[0];
      wl[j] = out[1];
      params64[j] = out[0];
    }
    double b0h = 0;
    double b0l = 0;
    if (options.bias()) {
      b0h = sys.meanH[d];
      b0l = sys.meanL[d];
      for (int j = 0; j < d; j++) {
        DoubleDouble.mul(wh[j], wl[j], sys.meanH[j], sys.meanL[j], out);
        DoubleDouble.add(b0h, b0l, -out[0], -out[1], out);
        b0h = out[0];
        b0l = out[1];
      }
      params64[d] = b0h;
    }
    double condition = ConditionEstimate.of(f, norm1, d);
    Solution solution = new Solution(params64, condition, NAME);
    return new LeastSquaresFit(sys, f, options, threads, wh, wl, b0h, b0l, solution);
  }
}
