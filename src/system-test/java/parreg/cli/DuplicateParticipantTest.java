package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One live node per participant id (issue 13 item 3): a third node started as participant 0 while
 * the run goes on exits 2 naming node 0's address, journals nothing, and the run ends at the golden
 * bits with node 0 still its participant 0. (Before: node 1 switched to the newcomer.)
 */
@Tag("multiprocess")
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DuplicateParticipantTest {
  static final int STEPS = 1500;

  @TempDir Path dir;

  @Test
  void aSecondNodeWithAnIdAlreadyUpExitsNamingTheHolder() throws Exception {
    try (ClusterRun c = new ClusterRun(2, dir, p -> run(dir.resolve("node-" + p)))) {
      ClusterRun.await(c.node(1), s -> s.get("committedStep").asLong() >= 5, "the run to train");
      String holder = "pekko://parreg@127.0.0.1:" + c.ports[0];
      List<String> second =
          new ArrayList<>(
              List.of(
                  "node",
                  "--participant",
                  "0",
                  "--port",
                  "" + NodeProcess.freePort(),
                  "--admin-port",
                  "" + NodeProcess.freePort(),
                  "--seed-nodes",
                  c.seeds,
                  "--backend",
                  "cpu"));
      second.addAll(run(dir.resolve("second")));
      second.add(
          "--exit-when-done"); // (before the check, it took over participant 0, finished and exited
      // 0)
      NodeProcess.Result r = NodeProcess.run(second, Duration.ofSeconds(90));
      assertEquals(2, r.exitCode(), r.output());
      assertTrue(r.output().contains("participant 0 is already held by " + holder), r.output());
      JsonNode s1 = c.node(1).status().orElseThrow();
      assertTrue(
          s1.get("committedStep").asLong() < STEPS, "the second node came while the run went on");
      assertEquals(holder, s1.get("peers").get(0).get("address").asText(), "node 1 kept node 0");
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText());
      }
    }
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
    CommandLineTest.Run predict =
        CommandLineTest.run(
            "predict",
            "--journal",
            dir.resolve("second").toString(),
            "--participant",
            "0",
            "--x",
            "1");
    CommandLineTest.assertUserError(predict, "holds no run");
  }

  private static List<String> run(Path journal) {
    return List.of(
        "--data",
        "seed",
        "--journal",
        journal.toString(),
        "--steps",
        "" + STEPS,
        "--step-interval-ms",
        "10");
  }
}
