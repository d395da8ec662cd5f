package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer started with another contract is refused: each node names the differing field in its
 * status, neither trains, and neither journal receives a step.
 */
@Tag("multiprocess")
class PeerContractTest {
  @TempDir Path dir;

  @Test
  void aPeerWithAnotherContractIsRefusedByField() throws Exception {
    try (ClusterRun c = new ClusterRun(2, dir, p -> p == 0
        ? List.of("--data", "seed", "--journal", dir.resolve("node-0").toString(), "--steps", "50")
        : List.of("--data", "seed", "--journal", dir.resolve("node-1").toString(), "--steps", "50", "--batch-size", "1"))) {
      JsonNode s0 = ClusterRun.await(c.node(0), s -> s.get("refusedPeers").size() > 0, "node 0 to refuse its peer");
      assertTrue(s0.get("refusedPeers").get(0).asText().contains("contract differs in batchSize"), s0.get("refusedPeers").toString());
      JsonNode s1 = ClusterRun.await(c.node(1), s -> s.get("refusedPeers").size() > 0, "node 1 to refuse its peer");
      assertTrue(s1.get("refusedPeers").get(0).asText().contains("batchSize"), s1.get("refusedPeers").toString());
      assertEquals("starting", s0.get("state").asText());
      assertEquals(0, s0.get("committedStep").asLong());
      assertEquals(0, c.node(0).status().orElseThrow().get("journal").get("position").asLong(), "nothing journaled");
    }
  }
}
