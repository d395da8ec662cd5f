package parreg.device;

import parreg.solver.ExactSolver;
import parreg.solver.GramStats;
import parreg.solver.LeastSquaresFit;
import parreg.solver.RegressionSummary;
import parreg.solver.SolverOptions;

/**
 * The exact solver as one step of the run (SPEC section 2b): each participant's contribution to
 * step 1 is its partition's sufficient statistics ({@link GramStats}) carried as a {@link
 * LocalSums} — the packed triangle's high parts, then its low parts, as the "gradient", zero as the
 * loss sum, the sample count as the mass — so that the exchange, the journal's {@code
 * StepCommitted}, a peer serving a restarted node and every replay check handle it as they handle a
 * gradient step. The update is the solve: the statistics merged in participant-id order, solved by
 * {@link ExactSolver}, the same code on every node, so every node holds the same bits.
 *
 * <p>The step's loss is the fit's residual sum of squares over twice the mass, the loss gradient
 * descent reports ({@code sum r_i^2 / 2M}).
 */
public final class ExactStep {
  private ExactStep() {}

  /** The one step an exact run commits. */
  public static final long STEP = 1;

  /** A participant's statistics as its contribution. */
  public static LocalSums contribution(GramStats s) {
    int e = s.entries();
    double[] packed = new double[2 * e];
    for (int i = 0; i < e; i++) {
      packed[i] = s.hiAt(i);
      packed[e + i] = s.loAt(i);
    }
    return new LocalSums(packed, 0.0, s.mass());
  }

  /**
   * The statistics a contribution carries under {@code contract}.
   *
   * @throws IllegalArgumentException when its size does not match the contract's features
   */
  public static GramStats statistics(RunContract contract, LocalSums c) {
    int e = parreg.solver.GramOrder.entries(parreg.solver.GramOrder.columns(contract.features()));
    if (c.length() != 2 * e) {
      throw new IllegalArgumentException(
          "a contribution of "
              + c.length()
              + " values is not the statistics of "
              + contract.features()
              + " features ("
              + 2 * e
              + " values)");
    }
    double[] hi = new double[e];
    double[] lo = new double[e];
    for (int i = 0; i < e; i++) {
      hi[i] = c.gradient(i);
      lo[i] = c.gradient(e + i);
    }
    return new GramStats(contract.features(), dataBits(contract), c.mass(), hi, lo);
  }

  /** The participants' statistics merged in participant-id order. */
  public static GramStats merged(RunContract contract, LocalSums[] contributions) {
    GramStats[] parts = new GramStats[contributions.length];
    for (int p = 0; p < parts.length; p++) {
      parts[p] = statistics(contract, contributions[p]);
    }
    return GramStats.merge(parts);
  }

  /** The solved system of a committed exact step. */
  public static LeastSquaresFit fit(RunContract contract, LocalSums[] contributions) {
    SolverSpec spec = contract.solverSpec();
    return new ExactSolver()
        .fit(merged(contract, contributions), new SolverOptions(contract.bias(), spec.l2Value()));
  }

  /**
   * The parameters and loss after the exact step.
   *
   * @throws parreg.solver.RankDeficientException where the statistics do not determine the
   *     parameters (collinear features, named)
   */
  public static UpdateRule.Outcome apply(RunContract contract, LocalSums[] contributions) {
    LeastSquaresFit fit = fit(contract, contributions);
    RegressionSummary summary = fit.summary(null);
    long mass = 0;
    for (LocalSums c : contributions) {
      mass += c.mass();
    }
    double loss = summary.residualSumOfSquares() / (2.0 * UpdateRule.unsignedToDouble(mass));
    return new UpdateRule.Outcome(fit.solution().parameters(), loss, mass);
  }

  /** 32 where the contract's data are binary32 (SPEC section 2), 64 for binary64 data. */
  public static int dataBits(RunContract contract) {
    return contract.precision() == Precision.F64 ? 64 : 32;
  }
}
