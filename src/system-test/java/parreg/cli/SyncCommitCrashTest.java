package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --sync-commit} under a crash: every step durable before the next is published (its own
 * contribution is computed while the journal writes, never sent before), node 1 killed with SIGKILL
 * at a random point and restarted; both nodes end at the golden bits, every step once in each
 * journal, and the restarted node resumes exactly where its journal was. While it is down, {@code
 * export}, {@code predict} and {@code journal verify} read its journal and step log in a fresh
 * process: the model is that of the last step it reported committed (or a later one), and its
 * restart recovers at least that step (issue 13 item 6: no acknowledged step is lost).
 */
@Tag("multiprocess")
class SyncCommitCrashTest {
  static final int STEPS = 1000;

  @TempDir Path dir;

  @Test
  void aSyncCommitNodeIsKilledAndRestartedAndTheBitsAreGolden() throws Exception {
    int killAfter = 100 + new Random().nextInt(600);
    try (ClusterRun c =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    "seed",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "" + STEPS,
                    "--sync-commit"))) {
      long[] reported = new long[1];
      JsonNode resumed =
          c.crashAndRestart(
              1,
              killAfter,
              before -> {
                // Every step the node reported committed is durable (in its step log, most of
                // them not yet in H2): a fresh process reads the model of that step or a later one.
                reported[0] = before.get("committedStep").asLong();
                Path journal = dir.resolve("node-1");
                Path out = dir.resolve("killed.json");
                CommandLineTest.Run export =
                    CommandLineTest.run(
                        "export",
                        "--journal",
                        journal.toString(),
                        "--participant",
                        "1",
                        "--out",
                        out.toString());
                assertEquals(0, export.code(), export.err());
                JsonNode model = new ObjectMapper().readTree(out.toFile());
                long step = model.get("committedStep").asLong();
                assertTrue(
                    step >= reported[0],
                    "the journal after kill -9 ends at step "
                        + step
                        + ", the node reported step "
                        + reported[0]
                        + " committed");
                CommandLineTest.Printed predict =
                    CommandLineTest.printed(
                        "predict",
                        "--journal",
                        journal.toString(),
                        "--participant",
                        "1",
                        "--x",
                        "1");
                assertEquals(0, predict.code(), predict.err());
                // Seed run: w_k = 3 * 2^-k up to step 150, then 2^-150 for ever.
                double w = step <= 150 ? 3 * Math.pow(2, -step) : Math.pow(2, -150);
                assertEquals(Double.toString(w), predict.out().strip(), "predict at step " + step);
                CommandLineTest.Run verify =
                    CommandLineTest.run("journal", "verify", "--journal", journal.toString());
                assertEquals(0, verify.code(), verify.err());
              });
      assertTrue(
          resumed.get("recoveredStep").asLong() >= reported[0],
          "resumed at step "
              + resumed.get("recoveredStep").asLong()
              + ", the node reported step "
              + reported[0]
              + " committed before the kill: no acknowledged step is lost");
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals(STEPS, s.get("durableStep").asLong());
        assertEquals(
            "0x3690000000000000",
            s.get("weightBits").get(0).asText(),
            "golden bits after a crash with --sync-commit");
      }
    }
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }
}
