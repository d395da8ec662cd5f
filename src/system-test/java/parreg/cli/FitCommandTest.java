package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Bits;

/**
 * {@code parreg fit} on a real CSV file (scikit-learn's diabetes data): two local participants over
 * {@code --split} give the bits of the solve of the file's two halves (what a hand-started two-node
 * cluster on the halves gives, {@link ExactRunCrashTest}); a fit killed with SIGKILL at a random
 * moment and run again resumes from its journals to the same model.
 */
@Tag("multiprocess")
class FitCommandTest {
  @TempDir Path dir;

  @Test
  void aFitKilledAndRunAgainWritesTheModelOfTheHandStartedCluster() throws Exception {
    // scikit-learn's diabetes data (442 rows, 10 features) under the plain header x1,...,x10,y;
    // participant p of a --split of 2 reads rows [221 p, 221 (p + 1))
    List<String> rows =
        new ArrayList<>(Files.readAllLines(Path.of("src/test/resources/realdata/diabetes.csv")));
    rows.set(0, "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y");
    Path all = Files.write(dir.resolve("all.csv"), rows);
    List<Path> halves = List.of(dir.resolve("part-0.csv"), dir.resolve("part-1.csv"));
    List<String> firstHalf = new ArrayList<>(rows.subList(0, 222));
    List<String> secondHalf = new ArrayList<>(List.of(rows.get(0)));
    secondHalf.addAll(rows.subList(222, 443));
    Files.write(halves.get(0), firstHalf);
    Files.write(halves.get(1), secondHalf);
    // fit's default for decimal text is binary64 data (--precision f64)
    String expected =
        Bits.hexList(ExactRunCrashTest.reference(halves, parreg.device.Precision.F64));

    Path work = dir.resolve("fit");
    List<String> fit =
        List.of(
            "fit",
            "--data",
            all.toString(),
            "--participants",
            "2",
            "--backend",
            "cpu",
            "--dir",
            work.toString());
    long killAfterMs = new Random().nextInt(4000);
    Process first =
        new ProcessBuilder(NodeProcess.command(fit))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("fit-1.log").toFile())
            .start();
    if (!first.waitFor(killAfterMs, TimeUnit.MILLISECONDS)) {
      first.destroyForcibly();
      first.waitFor(30, TimeUnit.SECONDS);
    }
    Path model = work.resolve("model.json");
    if (!Files.exists(model)) {
      // The killed fit's nodes notice it is gone and stop; the same command then resumes.
      DataCommandsTest.Run again = awaitRerun(fit);
      assertEquals(0, again.code(), again.out() + again.err());
      assertTrue(again.out().contains("(intercept)"), again.out());
    }
    Checkpoint cp = Checkpoint.fromFile(model);
    assertEquals(expected, Bits.hexList(cp.parameters()), "killed after " + killAfterMs + " ms");
    assertEquals(442L, ((Number) cp.summary().get("observations")).longValue());
  }

  /** Runs the fit again once the killed fit's nodes have let go of their journals. */
  private static DataCommandsTest.Run awaitRerun(List<String> fit) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      DataCommandsTest.Run r = DataCommandsTest.run(fit.toArray(String[]::new));
      boolean held = r.code() == 2 && r.err().contains("in use");
      if (!held || System.nanoTime() > deadline) {
        return r;
      }
      Thread.sleep(500);
    }
  }
}
