package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
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
 * A peer started with another contract is refused, and the refusal ends (issue 13 item 2): each
 * node names the differing field in its status; when neither is further along both exit 2 after the
 * grace period (parreg.peer.refusal-grace, 5 s) without a step in either journal; a newcomer
 * refused by a peer that is further along exits 2 at once while that peer keeps waiting. The target
 * step ({@code --steps}) is agreed like the contract: a node with a lower target would otherwise
 * finish and leave its peer waiting for ever.
 */
@Tag("multiprocess")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PeerContractTest {
  @TempDir Path dir;

  @Test
  void aPeerWithAnotherContractIsRefusedByFieldAndBothGiveUp() throws Exception {
    try (ClusterRun c =
        new ClusterRun(
            2,
            dir,
            p ->
                p == 0
                    ? List.of(
                        "--data",
                        "seed",
                        "--journal",
                        dir.resolve("node-0").toString(),
                        "--steps",
                        "50")
                    : List.of(
                        "--data",
                        "seed",
                        "--journal",
                        dir.resolve("node-1").toString(),
                        "--steps",
                        "50",
                        "--batch-size",
                        "1"))) {
      JsonNode s0 =
          ClusterRun.await(
              c.node(0), s -> s.get("refusedPeers").size() > 0, "node 0 to refuse its peer");
      assertTrue(
          s0.get("refusedPeers").get(0).asText().contains("contract differs in batchSize"),
          s0.get("refusedPeers").toString());
      assertTrue(StatusCommand.summary(s0).contains("refused: peer "), StatusCommand.summary(s0));
      assertEquals("starting", s0.get("state").asText());
      assertEquals(0, s0.get("committedStep").asLong());
      assertEquals(0, s0.get("journal").get("position").asLong(), "nothing journaled");
      for (int p = 0; p < 2; p++) {
        assertEquals(2, c.node(p).waitFor(Duration.ofSeconds(60)), "node " + p + " gives up");
        String log = Files.readString(c.node(p).log());
        assertTrue(
            log.contains("batchSize")
                && log.contains("no peer of this node's run joined within 5.0 s"),
            log);
      }
    }
    for (int p = 0; p < 2; p++) {
      CommandLineTest.Run r =
          CommandLineTest.run(
              "predict",
              "--journal",
              dir.resolve("node-" + p).toString(),
              "--participant",
              "" + p,
              "--x",
              "1");
      CommandLineTest.assertUserError(r, "holds no run");
    }
  }

  @Test
  void peersWithAnotherTargetStepRefuseEachOtherAndBothGiveUp() throws Exception {
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
                    p == 0 ? "20" : "40",
                    "--exit-when-done"))) {
      for (int p = 0; p < 2; p++) {
        assertEquals(2, c.node(p).waitFor(Duration.ofSeconds(90)), "node " + p + " gives up");
        String log = Files.readString(c.node(p).log());
        String expected =
            p == 0
                ? "targetSteps: expected '20' but found '40'"
                : "targetSteps: expected '40' but found '20'";
        assertTrue(
            log.contains(expected)
                && log.contains("no peer of this node's run joined within 5.0 s"),
            log);
      }
    }
  }

  @Test
  void aNewcomerRefusedByAPeerFurtherAlongExitsAtOnce() throws Exception {
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
                    "100000",
                    "--step-interval-ms",
                    "20"))) {
      ClusterRun.await(c.node(1), s -> s.get("committedStep").asLong() >= 10, "the run to train");
      assertEquals(0, c.node(1).stop(Duration.ofSeconds(30)));
      // Node 1's address, another batch size and a fresh journal: not part of the run going on.
      List<String> newcomer =
          new ArrayList<>(
              List.of(
                  "node",
                  "--participant",
                  "1",
                  "--port",
                  "" + c.ports[1],
                  "--admin-port",
                  "" + c.admin[1],
                  "--seed-nodes",
                  c.seeds,
                  "--backend",
                  "cpu",
                  "--data",
                  "seed",
                  "--journal",
                  dir.resolve("newcomer").toString(),
                  "--steps",
                  "100000",
                  "--batch-size",
                  "1"));
      NodeProcess.Result r = NodeProcess.run(newcomer, Duration.ofSeconds(90));
      assertEquals(2, r.exitCode(), r.output());
      assertTrue(
          r.output().contains("contract differs in batchSize")
              && r.output().contains("further along"),
          r.output());
      assertTrue(c.node(0).isAlive(), "the node further along keeps waiting for its participant 1");
      assertTrue(c.node(0).status().orElseThrow().get("committedStep").asLong() >= 10);
    }
  }
}
