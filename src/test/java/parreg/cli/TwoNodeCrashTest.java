package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real node processes on 127.0.0.1: the first seed node (participant 0) is killed with SIGKILL
 * at a random point of an unpaced run, restarted, and both nodes finish at the golden bits with
 * every step in each journal exactly once. (The demo test kills node 1.)
 */
@Tag("multiprocess")
class TwoNodeCrashTest {
  static final int STEPS = 1000;

  @TempDir Path dir;

  @Test
  void theFirstSeedNodeIsKilledAndRestartedAndTheBitsAreGolden() throws Exception {
    runWithCrash(0, 100 + new Random().nextInt(600));
  }

  void runWithCrash(int victim, int killAfter) throws Exception {
    int[] ports = {NodeProcess.freePort(), NodeProcess.freePort()};
    int[] admin = {NodeProcess.freePort(), NodeProcess.freePort()};
    String seeds = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1];
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (int p = 0; p < 2; p++) {
        nodes.add(NodeProcess.start(List.of("node", "--participant", "" + p, "--port", "" + ports[p], "--admin-port", "" + admin[p],
            "--seed-nodes", seeds, "--journal", dir.resolve("node-" + p).toString(), "--steps", "" + STEPS, "--backend", "cpu"),
            dir.resolve("node-" + p + ".log"), admin[p]));
      }
      NodeProcess v = nodes.get(victim);
      await(v, s -> s.get("committedStep").asLong() >= killAfter, "victim to reach step " + killAfter);
      v.kill9();
      v.restart();
      JsonNode resumed = await(v, s -> s.get("committedStep").asLong() > s.get("recoveredStep").asLong()
          && !"starting".equals(s.get("state").asText()), "victim to commit a new step after its restart");
      assertTrue(resumed.get("recoveredStep").asLong() >= killAfter, "resumed from its journal, not from scratch");
      for (NodeProcess n : nodes) {
        JsonNode s = await(n, j -> "done".equals(j.get("state").asText()), "node to finish");
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText(), "golden bits after a crash of node " + victim);
      }
    } finally {
      for (NodeProcess n : nodes) {
        n.close();
      }
    }
    for (int p = 0; p < 2; p++) {
      String check = JournalCheck.describe(dir.resolve("node-" + p).toString(), p, STEPS);
      assertTrue(check.startsWith("ok"), "journal of node " + p + ": " + check);
    }
  }

  static JsonNode await(NodeProcess n, java.util.function.Predicate<JsonNode> until, String what) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
    while (System.nanoTime() < deadline) {
      if (!n.isAlive()) {
        throw new AssertionError("node exited (" + n.exitCode().orElse(-1) + ") while waiting for " + what + "; log "
            + java.nio.file.Files.readString(n.log()).lines().filter(l -> !l.startsWith("\tat")).reduce("", (a, b) -> a + "\n" + b));
      }
      Optional<JsonNode> s = n.status();
      if (s.isPresent() && until.test(s.get())) {
        return s.get();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("timed out waiting for " + what + "; see " + n.log());
  }
}
