package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job, {@code parreg demo}, run as a user would (two node processes, node 1
 * killed with SIGKILL mid-run and restarted, admin queries, golden bits, journals checked row by
 * row, a fresh process predicting from the checkpoint): it must exit 0. With {@code --evidence}
 * each node also leaves its device evidence record, whose content is checked here.
 */
@Tag("multiprocess")
class DemoTest {
  @TempDir Path dir;

  @Test
  void theDemoSucceedsAndLeavesDeviceEvidence() throws Exception {
    assertEquals(0, Main.execute("demo", "--dir", dir.toString(), "--evidence"));
    for (int p = 0; p < 2; p++) {
      JsonNode ev =
          new ObjectMapper().readTree(dir.resolve("evidence-node-" + p + ".json").toFile());
      assertEquals("parreg-device-evidence/v1", ev.get("kind").asText());
      assertEquals(p, ev.get("participant").asInt());
      assertEquals("cpu", ev.get("backend").asText());
      assertEquals(
          ev.get("launchesIssued").asLong(),
          ev.get("launchesRetired").asLong(),
          "every launch retired");
      assertTrue(ev.get("launchesIssued").asLong() > 0);
      assertEquals(200, ev.get("lastStep").asLong(), "written when the run completed");
      assertTrue(ev.get("lastFences").size() > 0, "fence timestamps of the last launches");
      // Final device result: the gradient bits, the loss bits and the mass of the last launch.
      // At w = 2^-150, (float) w is 0: the residuals are -y = 0, so S_p and the loss are +0.0.
      assertEquals("0x0000000000000000", ev.get("finalResultBits").get(0).asText());
      assertEquals(p == 0 ? "1" : "2", ev.get("finalResultBits").get(2).asText(), "the mass m_p");
    }
  }
}
