package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
 * journal, and the restarted node resumes exactly where its journal was.
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
      JsonNode resumed = c.crashAndRestart(1, killAfter);
      assertTrue(
          resumed.get("recoveredStep").asLong() > 0, "resumed from its journal, not from scratch");
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
