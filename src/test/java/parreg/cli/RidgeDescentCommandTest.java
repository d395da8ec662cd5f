package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Precision;
import parreg.device.SolverSpec;

/**
 * {@code --l2} with gradient descent through the command line: accepted by both forms of descent
 * (into the contract's solver term), a zero penalty leaving the term as it was, bad values refused
 * with exit 2 and nothing written; {@code fit --solver gd --l2} ends at the exact ridge solution.
 */
class RidgeDescentCommandTest {
  static final Path SWISS = RealDataTest.DIR.resolve("swiss.csv");

  @TempDir Path tmp;

  @Test
  void theSolverTermCarriesThePenaltyOfEitherDescent() {
    assertEquals(
        "gd-standardized/v1;tol=1e-7;l2=0.5",
        SolverChoice.resolve("gd", "0.5", 5, 0, false, false, null, null).text());
    assertEquals(
        "gd-raw/v1;l2=0.5",
        SolverChoice.resolve("gd", " 0.5 ", 5, 0, true, true, null, null).text());
    assertEquals(
        "gd-standardized/v1;tol=1e-6;l2=2",
        SolverChoice.resolve("auto", "2", 5, 8, false, false, true, "1e-6").text());
    // a zero penalty is no penalty: today's terms, contracts and bits
    assertEquals(SolverSpec.GD, SolverChoice.resolve("gd", "0.0", 5, 0, true, true, null, null));
    assertEquals(
        SolverSpec.standardized(SolverChoice.DEFAULT_TOL),
        SolverChoice.resolve("gd", "0", 5, 0, false, false, null, null));
    for (String bad : new String[] {"-1", "x", "1e400", ""}) {
      UserError e =
          assertThrows(
              UserError.class,
              () -> SolverChoice.resolve("gd", bad, 5, 0, false, false, null, null),
              bad);
      assertTrue(e.getMessage().startsWith("--l2: "), e.getMessage());
    }
  }

  @Test
  void badPenaltiesOfGradientDescentExitTwoAndWriteNothing() {
    for (String bad : new String[] {"-0.5", "ten"}) {
      Path dir = tmp.resolve("refused-" + bad);
      DataCommandsTest.Run run =
          DataCommandsTest.run(args(dir, "--solver", "gd", "--l2", bad).toArray(String[]::new));
      assertEquals(2, run.code(), bad + ": " + run.out() + run.err());
      assertTrue(run.err().contains("--l2"), run.err());
      assertTrue(!Files.exists(dir.resolve("model.json")));
    }
  }

  @Test
  void fitWithGradientDescentAndAPenaltyEndsAtTheExactRidgeSolution() throws Exception {
    Path dir = tmp.resolve("fit");
    DataCommandsTest.Run run =
        DataCommandsTest.run(args(dir, "--solver", "gd", "--l2", "1").toArray(String[]::new));
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

  private static List<String> args(Path dir, String... flags) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "fit",
                "--data",
                SWISS.toString(),
                "--label",
                "Fertility",
                "--backend",
                "cpu",
                "--dir",
                dir.toString()));
    a.addAll(List.of(flags));
    return a;
  }
}
