package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A diverging run (issue 13 item 4): the first step whose update is not finite is not committed;
 * every node stops at that same step with exit 3 and one line naming it, and each journal ends at
 * the last finite step, which export and predict read.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DivergenceTest {
  @TempDir Path dir;

  @Test
  void everyNodeStopsAtTheSameStepAndTheJournalEndsAtTheLastFiniteOne() throws Exception {
    Path a = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n");
    Path b = Files.writeString(dir.resolve("b.csv"), "x1,y\n2,4\n3,6\n");
    // Rate 100 multiplies w by about -467 per step: binary32 overflows (w32 = infinity) near step
    // 15.
    try (ClusterRun run =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    (p == 0 ? a : b).toString(),
                    "--solver",
                    "gd",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "1000",
                    "--learning-rate",
                    "100",
                    "--exit-when-done"))) {
      long[] stopped = new long[2];
      for (int p = 0; p < 2; p++) {
        NodeProcess n = run.node(p);
        assertEquals(
            3,
            n.waitFor(Duration.ofSeconds(120)),
            "node " + p + " exits 3: " + Files.readString(n.log()));
        String log = Files.readString(n.log());
        Matcher m =
            Pattern.compile(
                    "parreg: error: training diverged at step (\\d+): parameter w1 = -?Infinity \\(not "
                        + "finite\\); the step was not committed; the journal ends at step (\\d+), the last finite one")
                .matcher(log);
        assertTrue(m.find(), "one line naming the step: " + log);
        assertTrue(
            log.contains("rerun with a smaller --learning-rate") && log.contains("--solver exact"),
            "the remedy named: " + log);
        stopped[p] = Long.parseLong(m.group(1));
        assertEquals(stopped[p] - 1, Long.parseLong(m.group(2)));
        assertTrue(!log.contains("\tat "), "no stack trace");
      }
      assertEquals(stopped[0], stopped[1], "both nodes stop at the same step");
      for (int p = 0; p < 2; p++) {
        Checkpoint cp = Checkpoint.fromJournal(dir.resolve("node-" + p).toString(), p, null);
        assertEquals(
            stopped[p] - 1, cp.committedStep(), "the journal ends at the last finite step");
        assertTrue(Double.isFinite(cp.parameters()[0]) && Double.isFinite(cp.loss()));
        NodeProcess.Result predict =
            NodeProcess.run(
                List.of(
                    "predict",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--participant",
                    "" + p,
                    "--x",
                    "1"),
                Duration.ofSeconds(60));
        assertEquals(0, predict.exitCode(), predict.output());
        assertEquals(cp.parameters()[0], Double.parseDouble(predict.output().strip()));
      }
    }
  }
}
