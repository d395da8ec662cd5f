package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.SolverSpec;

/**
 * {@code --l2} with gradient descent through the command line: accepted by both forms of descent
 * (into the contract's solver term), a zero penalty leaving the term as it was, bad values refused
 * with exit 2 and nothing written ({@link RidgeDescentRunTest} runs such fits and nodes to their
 * end).
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

  static List<String> args(Path dir, String... flags) {
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
