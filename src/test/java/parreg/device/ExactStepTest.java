package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import parreg.solver.ColumnData;
import parreg.solver.ExactSolver;
import parreg.solver.GramOrder;
import parreg.solver.GramStats;
import parreg.solver.RankDeficientException;
import parreg.solver.ReferenceGramPass;
import parreg.solver.SolverOptions;

/** The exact solver as one step: its contribution carries the statistics bit for bit. */
class ExactStepTest {
  static final SolverSpec EXACT = SolverSpec.exact(GramOrder.VERSION, ExactSolver.NAME, "0");

  static RunContract contract(int d, boolean bias, int participants, SolverSpec spec) {
    return new RunContract(
            "r",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/4",
            new double[RunContract.parameterCount(d, bias)],
            d,
            bias,
            participants,
            "files",
            0,
            ReductionOrder.VERSION)
        .withSolver(spec);
  }

  static Partition random(int n, int d, long seed) {
    Random r = new Random(seed);
    float[][] rows = new float[n][d];
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      double t = 0.5;
      for (int j = 0; j < d; j++) {
        rows[i][j] = (float) r.nextGaussian();
        t += (j + 1) * rows[i][j];
      }
      y[i] = (float) (t + 0.1 * r.nextGaussian());
    }
    return Partition.ofRows(rows, y);
  }

  @Test
  void aContributionCarriesTheStatisticsBitForBit() {
    Partition p = random(1000, 4, 1);
    GramStats s = ReferenceGramPass.compute(ColumnData.of(p.featureMajor(), p.targets(), 1000, 4));
    LocalSums c = ExactStep.contribution(s);
    assertEquals(1000, c.mass());
    GramStats back = ExactStep.statistics(contract(4, true, 1, EXACT), c);
    assertTrue(s.sameBits(back));
    assertTrue(CpuBackend.statistics(p, 3).sameBits(c), "the parallel pass, same bits");
    assertThrows(
        IllegalArgumentException.class,
        () -> ExactStep.statistics(contract(5, true, 1, EXACT), c),
        "statistics of another width are refused");
  }

  @Test
  void theStepIsTheSolveOfTheMergedStatistics() {
    Partition a = random(700, 3, 2);
    Partition b = random(900, 3, 3);
    LocalSums[] parts = {CpuBackend.statistics(a, 1), CpuBackend.statistics(b, 2)};
    RunContract c = contract(3, true, 2, EXACT);
    UpdateRule.Outcome o = ExactStep.apply(c, parts);
    GramStats merged =
        GramStats.merge(ExactStep.statistics(c, parts[0]), ExactStep.statistics(c, parts[1]));
    double[] direct = new ExactSolver().solve(merged, SolverOptions.withBias()).parameters();
    assertTrue(Bits.sameBits(direct, o.parameters()));
    assertEquals(1600, o.mass());
    // noise of standard deviation 0.1 (binary32 rounding adds little): loss = RSS / 2n near 0.005
    assertTrue(o.loss() > 0.004 && o.loss() < 0.006, "loss " + o.loss());
    assertTrue(Math.abs(o.parameters()[3] - 0.5) < 0.02, "intercept " + o.parameters()[3]);
  }

  @Test
  void collinearFeaturesAreRefusedNamed() {
    Random r = new Random(4);
    float[][] rows = new float[300][3];
    float[] y = new float[300];
    for (int i = 0; i < 300; i++) {
      rows[i][0] = (float) r.nextGaussian();
      rows[i][1] = 2 * rows[i][0];
      rows[i][2] = (float) r.nextGaussian();
      y[i] = rows[i][2];
    }
    LocalSums[] parts = {CpuBackend.statistics(Partition.ofRows(rows, y), 1)};
    RankDeficientException e =
        assertThrows(
            RankDeficientException.class,
            () -> ExactStep.apply(contract(3, true, 1, EXACT), parts));
    assertTrue(e.getMessage().contains("linear combination"), e.getMessage());
    // with a ridge penalty the system is determined
    UpdateRule.Outcome ridge =
        ExactStep.apply(
            contract(3, true, 1, SolverSpec.exact(GramOrder.VERSION, ExactSolver.NAME, "0.01")),
            parts);
    assertTrue(Double.isFinite(ridge.parameters()[0]));
  }
}
