package parreg.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Gradient descent with a ridge penalty: the raw rule ({@link UpdateRule}) and the standardized one
 * ({@link StandardizedDescent}) against hand computations, a zero penalty giving the unpenalised
 * bits and terms, and a restart after any step of a penalised run ending at the same step with the
 * same bits.
 */
class RidgeDescentTest {

  static RunContract contract(int d, boolean bias, String rate, SolverSpec solver) {
    return new RunContract(
            "t",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            rate,
            new double[d + (bias ? 1 : 0)],
            d,
            bias,
            1,
            "files",
            0,
            ReductionOrder.VERSION)
        .withSolver(solver);
  }

  @Test
  void theTermsCarryAPositivePenaltyOnlyAndRoundTrip() {
    SolverSpec s = SolverSpec.standardized("1e-7", "0.5");
    assertEquals("gd-standardized/v1;tol=1e-7;l2=0.5", s.text());
    assertEquals(s, SolverSpec.parse(s.text()));
    assertEquals(0.5, s.l2Value());
    SolverSpec raw = SolverSpec.raw("2e-3");
    assertEquals("gd-raw/v1;l2=2e-3", raw.text());
    assertEquals(raw, SolverSpec.parse(raw.text()));
    assertTrue(!raw.standardized() && !raw.exact() && raw.penalised());
    // a zero penalty, however written, is the unpenalised term: old contracts keep their bytes
    assertEquals("gd-standardized/v1;tol=1e-7", SolverSpec.standardized("1e-7", "0.00").text());
    assertEquals(SolverSpec.standardized("1e-7"), SolverSpec.standardized("1e-7", "0e5"));
    assertEquals(SolverSpec.GD, SolverSpec.raw("0.0"));
    RunContract seed = RunContract.seed(2, 0);
    assertEquals(seed.digest(), seed.withSolver(SolverSpec.raw("0")).digest());
    assertNotEquals(seed.digest(), seed.withSolver(raw).digest());
    for (String bad :
        new String[] {
          "gd-raw/v1;l2=0",
          "gd-raw/v1;l2=0.0",
          "gd-raw/v1;l2=-1",
          "gd-raw/v1",
          "gd-raw/v1;tol=1",
          "gd-standardized/v1;tol=1e-7;l2=0",
          "gd-standardized/v1;tol=1e-7;l2=x",
          "gd-standardized/v1;l2=1;tol=1e-7"
        }) {
      assertThrows(IllegalArgumentException.class, () -> SolverSpec.parse(bad), bad);
    }
  }

  /**
   * Raw descent, hand computed (every value exact in binary64): S = (3, 4, 5), M = 2, so G = (1.5,
   * 2, 2.5); l2 = 0.5 at w = (2, -1, b 0.5) gives (2.5, 1.5, 2.5) and, at rate 1/4, w = (1.375,
   * -1.375, -0.125). Without a bias the last parameter is penalised too.
   */
  @Test
  void theRawPenalisedUpdateMatchesAHandComputation() {
    LocalSums[] set = {new LocalSums(new double[] {1, 1, 2}, 3, 1), sums(2, 3, 3, 1)};
    double[] w = {2, -1, 0.5};
    UpdateRule.Outcome o = UpdateRule.apply(w, set, 0.25, 0.5, true);
    assertArrayEquals(new double[] {1.375, -1.375, -0.125}, o.parameters());
    assertEquals(5.0 / 4.0, o.loss());
    // bias false: the third one is a feature, G 2.5 + 0.25 = 2.75, 0.5 - 0.6875 = -0.1875
    assertArrayEquals(
        new double[] {1.375, -1.375, -0.1875},
        UpdateRule.apply(w, set, 0.25, 0.5, false).parameters());
  }

  private static LocalSums sums(double a, double b, double c, long mass) {
    return new LocalSums(new double[] {a, b, c}, 2, mass);
  }

  @Test
  void aZeroPenaltyGivesTheUnpenalisedBits() {
    Random r = new Random(5);
    for (int t = 0; t < 200; t++) {
      int n = 1 + r.nextInt(6);
      double[] w = new double[n];
      LocalSums[] set = new LocalSums[1 + r.nextInt(3)];
      for (int j = 0; j < n; j++) {
        w[j] = t % 7 == 0 ? -0.0 : r.nextGaussian() * Math.scalb(1.0, r.nextInt(40) - 20);
      }
      for (int p = 0; p < set.length; p++) {
        double[] s = new double[n];
        for (int j = 0; j < n; j++) {
          s[j] = t % 5 == 0 ? -0.0 : r.nextGaussian() * 1e3;
        }
        set[p] = new LocalSums(s, r.nextDouble(), 1 + r.nextInt(100));
      }
      double[] plain = UpdateRule.apply(w, copy(set), 0.25).parameters();
      double[] zero = UpdateRule.apply(w, copy(set), 0.25, 0.0, r.nextBoolean()).parameters();
      assertEquals(Bits.hexList(plain), Bits.hexList(zero), "case " + t);
    }
  }

  private static LocalSums[] copy(LocalSums[] set) {
    LocalSums[] out = new LocalSums[set.length];
    for (int p = 0; p < set.length; p++) {
      out[p] = new LocalSums(set[p].gradient(), set[p].lossSum(), set[p].mass());
    }
    return out;
  }

  /**
   * Standardized descent, hand computed: x = (0, 0, 4, 4), so m = 2 and the variance is 4; with l2
   * = 12 the scale is sqrt(4 + 12) = 4, E[z^2] = 4/16 and the trace bound is 1 (intercept) + 1/4 +
   * l2 / s^2 = 2. At w = 1, b = 0.5 the kernel's sums are S = (12, 4) over M = 4 (g = 3, g_b = 1):
   * g' = ((3 - 2*1) + 12*1) / 4 = 3.25, g'_b = 1; v = 4 - 3.25/2 = 2.375, w = 0.59375; c = 2.5 -
   * 1/2 = 2, b = 2 - 0.59375*2 = 0.8125. The loss is 16/8 = 2, so the measure is 3.25 / sqrt(4).
   */
  @Test
  void theStandardizedPenalisedUpdateMatchesAHandComputation() {
    RunContract c = contract(1, true, "1", SolverSpec.standardized("1e-7", "12"));
    double[] moments = {4, 8, 32};
    LocalSums kernel = new LocalSums(new double[] {12, 4}, 16, 4);
    LocalSums[] set = {StandardizedDescent.contribution(kernel, moments)};
    StandardizedDescent.Scaling sc = StandardizedDescent.scaling(c, set);
    assertEquals(2.0, sc.mean()[0]);
    assertEquals(4.0, sc.scale()[0]);
    assertEquals(2.0, sc.bound());
    StandardizedDescent.Step step = StandardizedDescent.apply(c, new double[] {1, 0.5}, set);
    assertArrayEquals(new double[] {0.59375, 0.8125}, step.outcome().parameters());
    assertEquals(2.0, step.outcome().loss());
    assertEquals(1.625, step.measure());
    // the measure is the penalised gradient's, at the parameters the step was computed at: at w =
    // 0, g'_w = 1/4 and the largest is g'_b = 1
    assertEquals(0.5, StandardizedDescent.apply(c, new double[] {0, 0.5}, set).measure());
    // unpenalised: s = 2, L = 2, g' = 0.5, v = 2 - 0.25, w = 0.875, c = 2.5 - 0.5, b = 2 - 1.75,
    // measure g'_b / 2
    RunContract plain = contract(1, true, "1", SolverSpec.standardized("1e-7", "0"));
    StandardizedDescent.Step p = StandardizedDescent.apply(plain, new double[] {1, 0.5}, set);
    assertArrayEquals(new double[] {0.875, 0.25}, p.outcome().parameters());
    assertEquals(0.5, p.measure());
  }

  /**
   * The stop of a penalised run depends on the parameters the step was computed at: a node killed
   * after any step and restarted from its committed parameters (the journal gives it the last step
   * replayed and the parameters before it) stops at the same step with the same bits.
   */
  @Test
  void aPenalisedRunRestartedAfterAnyStepEndsAtTheSameStepWithTheSameBits() {
    List<Partition> parts = StandardizedDescentTest.data(2);
    RunContract c =
        StandardizedDescentTest.contract(3, 2, "1e-5", 0)
            .withSolver(SolverSpec.standardized("1e-5", "0.25"));
    StandardizedRun.Result whole = StandardizedRun.run(c, parts, 100_000);
    assertTrue(whole.converged(), "converged");
    assertTrue(whole.steps() > 10);
    RunContract unpenalised = StandardizedDescentTest.contract(3, 2, "1e-5", 0);
    StandardizedRun.Result plain = StandardizedRun.run(unpenalised, parts, 100_000);
    assertNotEquals(Bits.hexList(plain.parameters()), Bits.hexList(whole.parameters()));
    for (long crash : new long[] {1, 2, whole.steps() / 2, whole.steps() - 1}) {
      double[] w = c.initialWeights();
      double[] before = null;
      LocalSums[] last = null;
      long k = 1;
      boolean stopped = false;
      for (; k <= 100_000 && !stopped; k++) {
        if (k == crash + 1) {
          // a restarted node holds the committed parameters and decides the replayed step's stop
          // from that step and the parameters before it
          assertTrue(!StandardizedDescent.converged(c, before.clone(), last), "at " + crash);
          w = w.clone();
        }
        LocalSums[] set = StandardizedDescentTest.step(c, parts, w);
        before = w;
        last = set;
        w = StandardizedDescent.apply(c, w, set).outcome().parameters();
        stopped = StandardizedDescent.converged(c, before, set);
      }
      assertEquals(whole.steps(), k - 1, "stop step after a crash at " + crash);
      assertEquals(Bits.hexList(whole.parameters()), Bits.hexList(w), "bits");
    }
  }

  /**
   * The penalised minimiser of a small problem, by the closed form of the normal equations, is what
   * a converged standardized run approaches, to 1e-4 relative: the stop uses the penalised gradient
   * (the unpenalised one is not small there). Binary32 residuals of labels near 500 floor the
   * measure between 1e-6 and 1e-5 here, hence the tolerance.
   */
  @Test
  void aConvergedPenalisedRunApproachesTheRidgeSolution() {
    List<Partition> parts = StandardizedDescentTest.data(1);
    double l2 = 0.25;
    RunContract c =
        StandardizedDescentTest.contract(3, 1, "1e-5", 0)
            .withSolver(SolverSpec.standardized("1e-5", "0.25"));
    double[] want = ridge(parts.get(0), l2);
    StandardizedRun.Result r = StandardizedRun.run(c, parts, 200_000);
    assertTrue(r.converged(), "converged at " + r.steps());
    for (int j = 0; j < want.length; j++) {
      assertEquals(want[j], r.parameters()[j], 1e-4 * Math.abs(want[j]), "parameter " + j);
    }
  }

  /** {@code (X_c'X_c/n + l2 I) w = X_c'y_c/n}, b from the means, by Gaussian elimination. */
  static double[] ridge(Partition p, double l2) {
    int d = p.features();
    int n = p.samples();
    double[] mx = new double[d];
    double my = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++) {
        mx[j] += p.x(i, j);
      }
      my += p.y(i);
    }
    for (int j = 0; j < d; j++) {
      mx[j] /= n;
    }
    my /= n;
    double[][] a = new double[d][d + 1];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++) {
        double xj = p.x(i, j) - mx[j];
        for (int k = 0; k < d; k++) {
          a[j][k] += xj * (p.x(i, k) - mx[k]) / n;
        }
        a[j][d] += xj * (p.y(i) - my) / n;
      }
    }
    for (int j = 0; j < d; j++) {
      a[j][j] += l2;
    }
    for (int j = 0; j < d; j++) {
      for (int r = j + 1; r < d; r++) {
        double f = a[r][j] / a[j][j];
        for (int k = j; k <= d; k++) {
          a[r][k] -= f * a[j][k];
        }
      }
    }
    double[] w = new double[d + 1];
    for (int j = d - 1; j >= 0; j--) {
      double t = a[j][d];
      for (int k = j + 1; k < d; k++) {
        t -= a[j][k] * w[k];
      }
      w[j] = t / a[j][j];
    }
    double b = my;
    for (int j = 0; j < d; j++) {
      b -= w[j] * mx[j];
    }
    w[d] = b;
    return w;
  }
}
