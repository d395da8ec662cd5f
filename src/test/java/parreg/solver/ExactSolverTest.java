package parreg.solver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The solver against exact rational least squares ({@link RationalLeastSquares}) of the same
 * binary64 (or binary32) values, with ridge and without an intercept; its invariances; and rank
 * deficiency named.
 */
class ExactSolverTest {
  private static final ExactSolver SOLVER = new ExactSolver(2);

  /** Random data: column j is {@code shift_j + scale_j * N(0,1)}, y a noisy linear function. */
  static double[][] problem(SplittableRandom r, int n, int d, boolean offsets) {
    double[] x = new double[n * d];
    double[] y = new double[n];
    double[] w = new double[d];
    for (int j = 0; j < d; j++) {
      double scale = Math.pow(10, r.nextInt(-2, 3));
      double shift = offsets ? scale * r.nextInt(-100, 100) : 0;
      w[j] = r.nextGaussian() / scale;
      for (int i = 0; i < n; i++) {
        x[j * n + i] = shift + scale * r.nextGaussian();
      }
    }
    for (int i = 0; i < n; i++) {
      double s = 5 + r.nextGaussian();
      for (int j = 0; j < d; j++) {
        s += w[j] * x[j * n + i];
      }
      y[i] = s;
    }
    return new double[][] {x, y};
  }

  /**
   * {@code |b_j - c_j| <= ulp(c_j) + slack * max_k |c_k|}: the parameters are the exact solution
   * rounded to binary64 (within an ulp, where the slack is far below one).
   */
  static void assertClose(Rational[] exact, double[] got, double slack, String what) {
    assertEquals(exact.length, got.length, what);
    double max = 0;
    for (Rational c : exact) {
      max = Math.max(max, Math.abs(c.toDouble()));
    }
    for (int j = 0; j < got.length; j++) {
      double c = exact[j].toDouble();
      double err = Math.abs(got[j] - c);
      assertTrue(
          err <= Math.ulp(c) + slack * max,
          what + ": parameter " + j + " is " + got[j] + ", exact " + c + " (error " + err + ")");
    }
  }

  @Test
  void binary64ParametersAreTheExactSolutionWithinAnUlp() {
    SplittableRandom r = new SplittableRandom(11);
    for (int trial = 0; trial < 24; trial++) {
      int n = 20 + r.nextInt(300);
      int d = 1 + r.nextInt(7);
      boolean bias = trial % 3 != 2;
      double[][] p = problem(r, n, d, bias);
      ColumnData data = ColumnData.of(p[0], p[1], n, d);
      Solution s = SOLVER.solve(GramPass.compute(data, 2), new SolverOptions(bias, 0));
      String what = "trial " + trial + " n=" + n + " d=" + d + " bias=" + bias;
      // statistics error 2^-96 relative (times the centring ratio) times cond <= 1e6: far below
      // an ulp, so each parameter is the exact solution rounded to one of its two neighbours
      assertClose(RationalLeastSquares.solve(data, bias, 0), s.parameters(), 0, what);
    }
  }

  @Test
  void ridgeMatchesItsRationalSolution() {
    SplittableRandom r = new SplittableRandom(12);
    for (double l2 : new double[] {1e-6, 0.01, 0.5, 3.0}) {
      int n = 150;
      int d = 5;
      double[][] p = problem(r, n, d, true);
      ColumnData data = ColumnData.of(p[0], p[1], n, d);
      for (boolean bias : new boolean[] {true, false}) {
        Solution s = SOLVER.solve(GramPass.compute(data, 1), new SolverOptions(bias, l2));
        Rational[] exact = RationalLeastSquares.solve(data, bias, l2);
        assertClose(exact, s.parameters(), 0, "l2=" + l2 + " bias=" + bias);
      }
    }
  }

  @Test
  void ridgeNeverPenalisesTheIntercept() {
    // a constant shift of y moves only the intercept, whatever l2 is
    SplittableRandom r = new SplittableRandom(13);
    int n = 80;
    int d = 3;
    double[][] p = problem(r, n, d, false);
    double[] y2 = p[1].clone();
    for (int i = 0; i < n; i++) {
      y2[i] += 1024;
    }
    SolverOptions o = new SolverOptions(true, 0.7);
    double[] a = SOLVER.solve(GramPass.compute(ColumnData.of(p[0], p[1], n, d), 1), o).parameters();
    double[] b = SOLVER.solve(GramPass.compute(ColumnData.of(p[0], y2, n, d), 1), o).parameters();
    for (int j = 0; j < d; j++) {
      assertEquals(a[j], b[j], 1e-12 * Math.abs(a[j]));
    }
    assertEquals(a[d] + 1024, b[d], 1e-9);
  }

  @Test
  void binary32DataMeetItsBound() {
    // binary32 rule: statistics within 2^-45 (relative, times the centring ratio); with cond <= 1e3
    // and no offsets the parameters are within 1e-9 (normwise) of the exact solution of the
    // binary32 values
    SplittableRandom r = new SplittableRandom(14);
    for (int trial = 0; trial < 10; trial++) {
      int n = 500 + r.nextInt(3000);
      int d = 1 + r.nextInt(6);
      double[][] p = problem(r, n, d, false);
      float[] x = new float[n * d];
      float[] y = new float[n];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) p[0][i];
      }
      for (int i = 0; i < n; i++) {
        y[i] = (float) p[1][i];
      }
      ColumnData data = ColumnData.of(x, y, n, d);
      Solution s = SOLVER.solve(GramPass.compute(data, 2), SolverOptions.withBias());
      assertClose(RationalLeastSquares.solve(data, true, 0), s.parameters(), 1e-9, "f32 " + trial);
    }
  }

  @Test
  void illConditionedButResolvableStaysAccurate() {
    // x2 = x0 + x1 + 1e-7 * noise: condition ~1e15 of the scaled system, far above its tolerance
    SplittableRandom r = new SplittableRandom(15);
    int n = 200;
    double[] x = new double[n * 3];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = r.nextGaussian();
      x[n + i] = r.nextGaussian();
      x[2 * n + i] = x[i] + x[n + i] + 1e-7 * r.nextGaussian();
      y[i] = 1 + x[i] - 2 * x[n + i] + 0.5 * x[2 * n + i] + 0.01 * r.nextGaussian();
    }
    ColumnData data = ColumnData.of(x, y, n, 3);
    LeastSquaresFit fit = SOLVER.fit(GramPass.compute(data, 2), SolverOptions.withBias());
    assertTrue(fit.solution().condition() > 1e12, "condition " + fit.solution().condition());
    // statistics 2^-86 times cond 1e15: 1e-11 relative at worst
    assertClose(RationalLeastSquares.solve(data, true, 0), fit.solution().parameters(), 1e-10, "");
  }

  @Test
  void theThreadCountNeverChangesABit() {
    SplittableRandom r = new SplittableRandom(16);
    int n = 5000;
    int d = 40;
    double[][] p = problem(r, n, d, true);
    GramStats stats = GramPass.compute(ColumnData.of(p[0], p[1], n, d), 2);
    LeastSquaresFit one = new ExactSolver(1).fit(stats, SolverOptions.withBias());
    RegressionSummary summary = one.summary(null);
    for (int t : new int[] {2, 3, 8}) {
      LeastSquaresFit other = new ExactSolver(t).fit(stats, SolverOptions.withBias());
      assertTrue(one.solution().sameBits(other.solution()), "t=" + t);
      assertEquals(
          summary, other.summary(null), "summary, t=" + t); // records compare doubles by bits
    }
  }

  @Test
  void threeParticipantsMergedSolveTheirUnion() {
    SplittableRandom r = new SplittableRandom(17);
    int d = 4;
    int[] sizes = {300, 1000, 77};
    int total = 1377;
    double[][] p = problem(r, total, d, true);
    ColumnData all = ColumnData.of(p[0], p[1], total, d);
    GramStats[] parts = new GramStats[3];
    int at = 0;
    for (int q = 0; q < 3; q++) {
      parts[q] = GramPass.compute(GramPassTest.slice(all, at, sizes[q], false), 2);
      at += sizes[q];
    }
    Solution s = SOLVER.solve(GramStats.merge(parts), SolverOptions.withBias());
    assertClose(RationalLeastSquares.solve(all, true, 0), s.parameters(), 0, "merged");
  }

  @Test
  void anExactCombinationIsRefusedAndNamed() {
    int n = 50;
    double[] x = new double[n * 4];
    double[] y = new double[n];
    SplittableRandom r = new SplittableRandom(18);
    for (int i = 0; i < n; i++) {
      x[i] = r.nextInt(-50, 50);
      x[n + i] = r.nextGaussian();
      x[2 * n + i] = r.nextInt(-50, 50);
      x[3 * n + i] = 2 * x[i] - 3 * x[2 * n + i]; // exact in binary64
      y[i] = r.nextGaussian();
    }
    GramStats stats = GramPass.compute(ColumnData.of(x, y, n, 4), 2);
    RankDeficientException e =
        assertThrows(
            RankDeficientException.class, () -> SOLVER.solve(stats, SolverOptions.withBias()));
    assertEquals(1, e.collinear().size());
    RankDeficientException.Collinear c = e.collinear().get(0);
    int[] all = {c.column(), c.dependsOn()[0], c.dependsOn()[c.dependsOn().length - 1]};
    java.util.Arrays.sort(all);
    assertArrayEquals(new int[] {0, 2, 3}, all, "the three collinear features");
    assertEquals(2, c.dependsOn().length, "x1 is not involved");
    String msg = e.describe(List.of("age", "noise", "height", "mix"));
    assertTrue(msg.contains("is a linear combination of") && msg.contains("intercept"), msg);
    assertTrue(msg.contains("--l2"), msg);
    // ridge makes it solvable
    double[] w = SOLVER.solve(stats, new SolverOptions(true, 1e-3)).parameters();
    assertEquals(5, w.length);
  }

  @Test
  void aRoundedCombinationIsRefusedToo() {
    // x2 = fl(0.1 x0 + 0.3 x1): collinear up to binary64 rounding, below the tolerance
    int n = 64;
    double[] x = new double[n * 3];
    double[] y = new double[n];
    SplittableRandom r = new SplittableRandom(19);
    for (int i = 0; i < n; i++) {
      x[i] = r.nextGaussian();
      x[n + i] = r.nextGaussian();
      x[2 * n + i] = 0.1 * x[i] + 0.3 * x[n + i];
      y[i] = r.nextGaussian();
    }
    GramStats stats = GramPass.compute(ColumnData.of(x, y, n, 3), 1);
    assertThrows(RankDeficientException.class, () -> SOLVER.solve(stats, SolverOptions.withBias()));
  }

  @Test
  void constantAndZeroColumnsAreNamed() {
    int n = 30;
    double[] x = new double[n * 2];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = i;
      x[n + i] = 7.25;
      y[i] = 2 * i + 1;
    }
    GramStats stats = GramPass.compute(ColumnData.of(x, y, n, 2), 1);
    RankDeficientException e =
        assertThrows(
            RankDeficientException.class, () -> SOLVER.solve(stats, SolverOptions.withBias()));
    assertArrayEquals(new int[] {1}, e.columns());
    assertTrue(e.describe(null).contains("x1 is constant"), e.describe(null));
    // through the origin a constant column is fine; an all-zero one is not
    SOLVER.solve(stats, new SolverOptions(false, 0));
    for (int i = 0; i < n; i++) {
      x[n + i] = 0;
    }
    GramStats zero = GramPass.compute(ColumnData.of(x, y, n, 2), 1);
    RankDeficientException z =
        assertThrows(
            RankDeficientException.class, () -> SOLVER.solve(zero, new SolverOptions(false, 0)));
    assertTrue(z.describe(null).contains("x1 is all zero"), z.describe(null));
  }

  @Test
  void fewerSamplesThanParametersAreRefused() {
    double[] x = {1, 2, 3, 4, 5, 6};
    double[] y = {1, 2};
    GramStats stats = GramPass.compute(ColumnData.of(x, y, 2, 3), 1);
    RankDeficientException e =
        assertThrows(
            RankDeficientException.class, () -> SOLVER.solve(stats, SolverOptions.withBias()));
    assertTrue(e.getMessage().contains("2 samples cannot determine 4 parameters"), e.getMessage());
  }

  @Test
  void optionsRejectABadPenalty() {
    assertThrows(IllegalArgumentException.class, () -> new SolverOptions(true, -1));
    assertThrows(IllegalArgumentException.class, () -> new SolverOptions(true, Double.NaN));
    assertThrows(
        IllegalArgumentException.class, () -> new SolverOptions(true, Double.POSITIVE_INFINITY));
  }
}
