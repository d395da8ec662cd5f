package parreg.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.PartitionInfo;
import parreg.device.ReferenceKernel;
import parreg.device.RunContract;
import parreg.device.SeedData;
import parreg.device.UpdateRule;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;

/** Replay checks of the training state: contiguity and recomputation of every recorded update. */
public class TrainingStateTest {
  public static final RunContract C = RunContract.seed(2, 0);
  public static final PartitionInfo[] ROSTER = {
    SeedData.partition(0).info(0), SeedData.partition(1).info(1)
  };

  public static StepCommitted step(long k, double[] w) {
    LocalSums[] set = new LocalSums[2];
    for (int p = 0; p < 2; p++) {
      Partition part = SeedData.partition(p);
      set[p] = ReferenceKernel.compute(part, 0, part.samples(), w, false);
    }
    UpdateRule.Outcome o = UpdateRule.apply(w, set, 0.25);
    return new StepCommitted(k, set, o.parameters(), o.loss());
  }

  @Test
  void replaysAGoodJournal() {
    TrainingState s = TrainingState.empty().apply(new RunStarted(C, ROSTER));
    for (int k = 1; k <= 151; k++) {
      s = s.apply(step(k, s.parameters()));
    }
    assertEquals(151, s.committed());
    assertEquals(0x3690000000000000L, Double.doubleToRawLongBits(s.parameters()[0]));
  }

  @Test
  void aGapIsReported() {
    TrainingState s = TrainingState.empty().apply(new RunStarted(C, ROSTER));
    TrainingState one = s.apply(step(1, s.parameters()));
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> one.apply(step(3, one.parameters())));
    assertTrue(e.getMessage().contains("not contiguous"), e.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> one.apply(step(1, one.parameters())),
        "a duplicate step is refused too");
  }

  @Test
  void aTamperedUpdateIsReported() {
    TrainingState s = TrainingState.empty().apply(new RunStarted(C, ROSTER));
    StepCommitted good = step(1, s.parameters());
    double[] bad = good.parameters();
    bad[0] = Math.nextUp(bad[0]);
    var tampered = new StepCommitted(1, good.contributions(), bad, good.loss());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.apply(tampered));
    assertTrue(e.getMessage().contains("does not recompute"), e.getMessage());
  }

  @Test
  void aStepBeforeTheRunStartedIsReported() {
    assertThrows(
        IllegalStateException.class,
        () -> TrainingState.empty().apply(step(1, new double[] {3.0})));
    TrainingState s = TrainingState.empty().apply(new RunStarted(C, ROSTER));
    assertThrows(IllegalStateException.class, () -> s.apply(new RunStarted(C, ROSTER)));
  }

  static LocalSums[] contributions(double[] w) {
    LocalSums[] set = new LocalSums[2];
    for (int p = 0; p < 2; p++) {
      Partition part = SeedData.partition(p);
      set[p] = ReferenceKernel.compute(part, 0, part.samples(), w, false);
    }
    return set;
  }

  @Test
  void aStepThatIsNotFiniteIsNotCommittedAndNamesTheStep() {
    // The seed data with a rate of 1e300: step 1 gives w = 3 - 1e300 * 6, finite; step 2 rounds it
    // to a binary32 infinity, so the gradient, the update and the loss are not finite.
    RunContract big =
        new RunContract(
            "diverging",
            C.schema(),
            C.checkpointContract(),
            RunContract.LOSS,
            "1e300",
            C.initialWeights(),
            1,
            false,
            2,
            C.dataset(),
            0,
            C.reductionOrder());
    TrainingState s = TrainingState.empty().apply(new RunStarted(big, ROSTER));
    TrainingState one = s.next(1, contributions(s.parameters()));
    assertTrue(Double.isFinite(one.parameters()[0]) && Double.isFinite(one.loss()));
    TrainingState.NonFinite e =
        assertThrows(
            TrainingState.NonFinite.class, () -> one.next(2, contributions(one.parameters())));
    assertEquals(2, e.step());
    assertTrue(
        e.getMessage().startsWith("training diverged at step 2: parameter w1 = "), e.getMessage());
    // Replaying such a step (a journal of a version before the check) is reported, not accepted.
    LocalSums[] set = contributions(one.parameters());
    UpdateRule.Outcome o = UpdateRule.apply(one.parameters(), set, 1e300);
    IllegalStateException r =
        assertThrows(
            IllegalStateException.class,
            () -> one.apply(new StepCommitted(2, set, o.parameters(), o.loss())));
    assertTrue(r.getMessage().contains("journal step 2 holds a non-finite update"), r.getMessage());
  }

  /**
   * A penalised descent replays with its penalty: each recorded step recomputes with the same rule
   * code, and a step recorded without the penalty is refused, raw and standardized alike.
   */
  @Test
  void aPenalisedRunReplaysWithItsPenalty() {
    for (parreg.device.SolverSpec solver :
        new parreg.device.SolverSpec[] {
          parreg.device.SolverSpec.raw("0.5"), parreg.device.SolverSpec.standardized("0", "0.5")
        }) {
      RunContract c = C.withSolver(solver);
      TrainingState s = TrainingState.empty().apply(new RunStarted(c, ROSTER));
      for (int k = 1; k <= 20; k++) {
        double[] w = s.parameters();
        LocalSums[] set = penalisedContributions(solver, w);
        TrainingState next = s.next(k, set);
        s = s.apply(new StepCommitted(k, set, next.parameters(), next.loss()));
        assertEquals(next.parameters()[0], s.parameters()[0]);
      }
      // the penalty shrinks: w = 3 (1 - rate (2 + l2))^k for raw descent, not 3 * 2^-k
      assertTrue(s.parameters()[0] != 3 * Math.scalb(1.0, -20), solver.text());
      TrainingState at = s;
      LocalSums[] set = penalisedContributions(solver, at.parameters());
      double[] unpenalised =
          solver.standardized()
              ? parreg.device.StandardizedDescent.apply(
                      C.withSolver(parreg.device.SolverSpec.standardized("0")),
                      at.parameters(),
                      set)
                  .outcome()
                  .parameters()
              : UpdateRule.apply(at.parameters(), set, 0.25).parameters();
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> at.apply(new StepCommitted(21, set, unpenalised, at.loss())));
      assertTrue(e.getMessage().contains("does not recompute"), e.getMessage());
    }
  }

  private static LocalSums[] penalisedContributions(parreg.device.SolverSpec solver, double[] w) {
    LocalSums[] set = contributions(w);
    if (solver.standardized()) {
      for (int p = 0; p < 2; p++) {
        set[p] =
            parreg.device.StandardizedDescent.contribution(
                set[p], parreg.device.StandardizedDescent.moments(SeedData.partition(p)));
      }
    }
    return set;
  }
}
