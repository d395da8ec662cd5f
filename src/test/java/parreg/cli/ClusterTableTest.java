package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The table of {@code status --cluster}: one aligned row per participant, then the nodes that did
 * not answer.
 */
class ClusterTableTest {
  static final String DOC =
      """
      {"node": "pekko://parreg@h:1",
       "participants": [
         {"participant": 0, "state": "training", "committedStep": 1200, "targetSteps": 3000, "durableStep": 1024,
          "stepsPerSecond": 240.04, "etaSeconds": 7.5, "loss": 1.23456e-4, "backend": "cuda",
          "device": {"name": "NVIDIA H200"}, "address": "pekko://parreg@h:1"},
         {"participant": 1, "state": "waiting", "committedStep": 1200, "targetSteps": 3000, "durableStep": 1100,
          "stepsPerSecond": null, "etaSeconds": null, "loss": null, "backend": "cpu",
          "device": {"name": "CPU"}, "address": "pekko://parreg@h:2"}],
       "unanswered": [{"address": "pekko://parreg@h:3", "error": "TimeoutException"}]}
      """;

  @Test
  void oneAlignedRowPerParticipant() {
    List<String> rows = ClusterTable.rows(ClusterTable.parse(new StatusCommand.Answer(200, DOC)));
    assertEquals(4, rows.size(), String.join("\n", rows));
    assertTrue(rows.get(0).startsWith("PARTICIPANT  STATE"), rows.get(0));
    assertEquals(
        List.of(
            "0",
            "training",
            "1200/3000",
            "1024",
            "240.0",
            "7.5",
            "s",
            "1.2346e-04",
            "cuda",
            "NVIDIA",
            "H200",
            "pekko://parreg@h:1"),
        List.of(rows.get(1).split(" +")));
    assertEquals(
        List.of(
            "1", "waiting", "1200/3000", "1100", "?", "?", "-", "cpu", "CPU", "pekko://parreg@h:2"),
        List.of(rows.get(2).split(" +")));
    assertTrue(
        rows.get(3).contains("no answer (TimeoutException)")
            && rows.get(3).endsWith("pekko://parreg@h:3"),
        rows.get(3));
    int address = rows.get(0).indexOf("ADDRESS");
    assertEquals(address, rows.get(1).indexOf("pekko://"), "columns aligned");
    assertEquals(address, rows.get(2).indexOf("pekko://"), "columns aligned");
  }

  @Test
  void anythingElseIsNotAClusterStatus() {
    assertNull(ClusterTable.parse(new StatusCommand.Answer(200, "{\"participant\": 0}")));
    assertNull(ClusterTable.parse(new StatusCommand.Answer(200, "<html>")));
    assertNull(
        ClusterTable.parse(new StatusCommand.Answer(503, "{\"error\": \"TimeoutException\"}")));
  }
}
