package parreg.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StandardizedDescentTest {

  static RunContract contract(int d, int participants, String tol, int batch) {
    return new RunContract(
            "t",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1",
            new double[d + 1],
            d,
            true,
            participants,
            "files",
            batch,
            ReductionOrder.VERSION)
        .withSolver(SolverSpec.standardized(tol));
  }

  /** Features with large means and different spreads: raw descent at rate 1/4 diverges here. */
  static List<Partition> data(int participants) {
    List<Partition> out = new ArrayList<>();
    for (int p = 0; p < participants; p++) {
      int n = 300 + 37 * p;
      float[][] x = new float[n][3];
      float[] y = new float[n];
      java.util.Random r = new java.util.Random(11 + p);
      for (int i = 0; i < n; i++) {
        x[i][0] = (float) (1000 + 5 * r.nextGaussian());
        x[i][1] = (float) (0.01 * r.nextGaussian());
        x[i][2] = (float) (3 * r.nextGaussian() + x[i][1] * 100);
        y[i] = (float) (0.5 * x[i][0] - 40 * x[i][1] + 2 * x[i][2] + 7 + 0.1 * r.nextGaussian());
      }
      out.add(Partition.ofRows(x, y));
    }
    return out;
  }

  @Test
  void theSolverTermRoundTripsAndLeavesTheOthersAsTheyWere() {
    SolverSpec s = SolverSpec.standardized("1e-7");
    assertEquals("gd-standardized/v1;tol=1e-7", s.text());
    assertEquals(s, SolverSpec.parse(s.text()));
    assertTrue(s.standardized());
    assertEquals("", SolverSpec.GD.text());
    assertEquals(0.0, SolverSpec.GD.tolValue());
    assertThrows(IllegalArgumentException.class, () -> SolverSpec.standardized("-1"));
    assertThrows(IllegalArgumentException.class, () -> SolverSpec.standardized("x"));
    assertThrows(IllegalArgumentException.class, () -> SolverSpec.parse("gd-standardized/v1"));
  }

  /**
   * A node killed after any step and restarted from its committed parameters (all a journal replay
   * gives it) continues with the same bits and stops at the same step: each contribution depends on
   * the parameters only, and the stop on the committed set only.
   */
  @Test
  void aRestartAfterAnyStepEndsAtTheSameStepWithTheSameBits() {
    List<Partition> parts = data(2);
    RunContract c = contract(3, 2, "1e-5", 0);
    StandardizedRun.Result whole = StandardizedRun.run(c, parts, 100_000);
    assertTrue(whole.converged(), "converged");
    assertTrue(whole.steps() > 10);
    for (long crash : new long[] {1, 2, whole.steps() / 2, whole.steps() - 1}) {
      double[] w = c.initialWeights();
      long k = 1;
      boolean stopped = false;
      for (; k <= 100_000 && !stopped; k++) {
        if (k == crash + 1) {
          w = w.clone(); // the restarted node holds the committed parameters, nothing else
        }
        LocalSums[] set = step(c, parts, w);
        double[] before = w;
        w = StandardizedDescent.apply(c, w, set).outcome().parameters();
        stopped = StandardizedDescent.converged(c, before, set);
      }
      assertEquals(whole.steps(), k - 1, "stop step after a crash at " + crash);
      assertArrayEquals(
          Bits.hexList(whole.parameters()).split(","), Bits.hexList(w).split(","), "bits");
    }
  }

  static LocalSums[] step(RunContract c, List<Partition> parts, double[] w) {
    LocalSums[] set = new LocalSums[parts.size()];
    for (int p = 0; p < set.length; p++) {
      set[p] =
          StandardizedDescent.contribution(
              ReferenceKernel.compute(parts.get(p), 0, parts.get(p).samples(), w, true),
              StandardizedDescent.moments(parts.get(p)));
    }
    return set;
  }

  @Test
  void itConvergesWhereRawDescentDivergesAndReportsOriginalUnits() {
    List<Partition> parts = data(1);
    RunContract c = contract(3, 1, "1e-5", 0);
    StandardizedRun.Result r = StandardizedRun.run(c, parts, 100_000);
    assertTrue(r.converged());
    double[] want = {0.5, -40, 2, 7};
    for (int j = 0; j < 3; j++) {
      assertEquals(want[j], r.parameters()[j], Math.abs(want[j]) * 0.05, "w" + j);
    }
    double[] raw = Simulation.run(contract(3, 1, "1e-6", 0).withSolver(SolverSpec.GD), parts, 50);
    assertTrue(!Double.isFinite(raw[0]) || Math.abs(raw[0]) > 1e6, "raw descent diverges");
  }

  @Test
  void aContributionOfTheWrongSizeIsRefused() {
    RunContract c = contract(3, 1, "0", 0);
    LocalSums bad = new LocalSums(new double[4], 0, 1);
    assertThrows(
        IllegalArgumentException.class,
        () -> StandardizedDescent.apply(c, new double[4], new LocalSums[] {bad}));
  }
}
