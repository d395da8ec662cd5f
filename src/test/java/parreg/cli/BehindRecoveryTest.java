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
 * SPEC section 3: a node whose journal was configured for delayed durability loses its last
 * seconds of steps to a kill -9 and comes back several steps behind. Its peer serves the
 * committed steps it lacks, it checks each against its own recomputed contribution, and both end
 * at the golden bits with every step journaled exactly once.
 */
@Tag("multiprocess")
class BehindRecoveryTest {
  static final int STEPS = 700;

  @TempDir Path dir;

  @Test
  void aNodeSeveralStepsBehindCatchesUpFromItsPeer() throws Exception {
    // WRITE_DELAY=3000 is respected as given: H2 then writes commits about every 3 s.
    String lossy = "jdbc:h2:file:" + dir.resolve("node-1").resolve("journal") + ";WRITE_DELAY=3000";
    try (ClusterRun c = new ClusterRun(2, dir, p -> List.of("--data", "seed", "--steps", "" + STEPS, "--step-interval-ms", "10",
        "--journal", p == 0 ? dir.resolve("node-0").toString() : lossy))) {
      JsonNode before = ClusterRun.await(c.node(1), s -> s.get("committedStep").asLong() >= 250, "node 1 to reach step 250");
      c.node(1).kill9();
      long lostFrom = before.get("committedStep").asLong();
      c.node(1).restart();
      JsonNode resumed = ClusterRun.await(c.node(1), s -> !"starting".equals(s.get("state").asText())
          && s.get("committedStep").asLong() > s.get("recoveredStep").asLong(), "node 1 to commit after its restart");
      assertTrue(resumed.get("recoveredStep").asLong() < lostFrom - 1,
          "the lossy journal came back several steps behind: recovered " + resumed.get("recoveredStep") + ", had " + lostFrom);
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText());
      }
    }
    assertTrue(JournalCheck.describe(dir.resolve("node-0").toString(), 0, STEPS).startsWith("ok"));
    String one = JournalCheck.describe("jdbc:h2:file:" + dir.resolve("node-1").resolve("journal"), 1, STEPS);
    assertTrue(one.startsWith("ok"), one);
  }
}
