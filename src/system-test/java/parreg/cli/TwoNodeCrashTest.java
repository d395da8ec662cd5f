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
 * Real node processes on 127.0.0.1: the first seed node (participant 0) is killed with SIGKILL at a
 * random point of an unpaced run, restarted, and both nodes finish at the golden bits with every
 * step in each journal exactly once. (The demo test kills node 1.)
 */
@Tag("multiprocess")
class TwoNodeCrashTest {
  static final int STEPS = 1000;

  @TempDir Path dir;

  @Test
  void theFirstSeedNodeIsKilledAndRestartedAndTheBitsAreGolden() throws Exception {
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
                    "" + STEPS))) {
      JsonNode resumed = c.crashAndRestart(0, killAfter);
      // crashAndRestart checked that it resumed from its journal, at least where it was durable
      assertTrue(
          resumed.get("recoveredStep").asLong() > 0, "resumed from its journal, not from scratch");
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals(
            "0x3690000000000000",
            s.get("weightBits").get(0).asText(),
            "golden bits after a crash of node 0");
      }
    }
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }
}
