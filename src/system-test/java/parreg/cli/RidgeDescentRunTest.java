package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Precision;

/**
 * Gradient descent with {@code --l2} run to its end: {@code fit --solver gd --l2} ends at the exact
 * ridge solution, and a node started again on a converged penalised journal stays at its step and
 * bits.
 */
@Tag("multiprocess")
class RidgeDescentRunTest {
  static final Path SWISS = RidgeDescentCommandTest.SWISS;

  @TempDir Path tmp;

  @Test
  void fitWithGradientDescentAndAPenaltyEndsAtTheExactRidgeSolution() throws Exception {
    Path dir = tmp.resolve("fit");
    DataCommandsTest.Run run =
        DataCommandsTest.run(
            RidgeDescentCommandTest.args(dir, "--solver", "gd", "--l2", "1")
                .toArray(String[]::new));
    assertEquals(0, run.code(), run.out() + run.err());
    Checkpoint cp = Checkpoint.fromFile(dir.resolve("model.json"));
    assertEquals(
        "gd-standardized/v1;tol=" + SolverChoice.DEFAULT_TOL + ";l2=1",
        cp.contract().solverSpec().text());
    double[] ridge = RealDataTest.solve(SWISS, "Fertility", Precision.F32, "1");
    double err = RealDataTest.worst(cp.parameters(), ridge);
    assertTrue(err <= 1e-4, "fit's model is " + err + " from the exact ridge solution");
  }

  /**
   * A penalised run's stop depends on the parameters its last step was computed at: a node started
   * again on the journal of a run that converged replays that step with the parameters before it,
   * decides the same stop, and ends at the same step with the same bits (without them it would
   * train on); {@code journal verify} recomputes every penalised update bit for bit.
   */
  @Test
  void aNodeRestartedOnAConvergedPenalisedJournalEndsAtTheSameStepAndBits() throws Exception {
    String journal = tmp.resolve("journal").toString();
    List<String> node =
        SoloNode.args(
            SWISS.toString(),
            journal,
            "50000",
            "--label",
            "Fertility",
            "--bias",
            "--standardize",
            "--l2",
            "1",
            "--exit-when-done",
            "--backend",
            "cpu");
    NodeProcess.Result first = NodeProcess.run(node, Duration.ofSeconds(90));
    assertEquals(0, first.exitCode(), first.output());
    Checkpoint done = Checkpoint.fromJournal(journal, 0, "parreg-run");
    assertTrue(done.committedStep() < 50_000, "converged at " + done.committedStep());
    assertEquals(0, CommandLineTest.run("journal", "verify", "--journal", journal).code());
    NodeProcess.Result again = NodeProcess.run(node, Duration.ofSeconds(90));
    assertEquals(0, again.exitCode(), again.output());
    Checkpoint after = Checkpoint.fromJournal(journal, 0, "parreg-run");
    assertEquals(done.committedStep(), after.committedStep());
    assertEquals(
        parreg.device.Bits.hexList(done.parameters()),
        parreg.device.Bits.hexList(after.parameters()));
    double[] ridge = RealDataTest.solve(SWISS, "Fertility", Precision.F32, "1");
    assertTrue(RealDataTest.worst(after.parameters(), ridge) <= 1e-4);
  }
}
