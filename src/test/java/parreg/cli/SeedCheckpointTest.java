package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.RunContract;

/**
 * A seed checkpoint carries the seed's byte strings, and {@code predict} checks them (issue 13 item
 * 9).
 */
class SeedCheckpointTest {
  @TempDir Path dir;

  @Test
  void predictChecksTheSeedTermsOfACheckpoint() throws Exception {
    Path out = dir.resolve("seed.json");
    new Checkpoint(RunContract.seed(2, 0), 1, 200, new double[] {0x1p-150}, 0.0).writeTo(out);
    String text = Files.readString(out);
    for (String bytes :
        new String[] {
          "sample-mass-squared-error;rate=1/4;f32-gradient-f64-update",
          "fixed-repeated-batch:x=1,1,2;y=0",
          "initial-natural-weight=3"
        }) {
      assertTrue(text.contains("\"" + bytes + "\""), bytes + " in " + text);
    }
    CommandLineTest.Run ok =
        CommandLineTest.run("predict", "--checkpoint", out.toString(), "--x", "2");
    assertEquals(0, ok.code(), ok.err());

    // A term that contradicts the contract, even with a digest recomputed to match, is refused.
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = (ObjectNode) json.readTree(out.toFile());
    ObjectNode c = (ObjectNode) root.get("contract");
    c.put("initialization", "initial-natural-weight=4");
    Map<String, String> fields = new LinkedHashMap<>();
    c.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue().asText()));
    root.put("contractDigest", RunContract.digestOf(fields));
    Path bad = dir.resolve("bad.json");
    json.writeValue(bad.toFile(), root);
    CommandLineTest.assertUserError(
        CommandLineTest.run("predict", "--checkpoint", bad.toString(), "--x", "2"),
        "initialization term 'initial-natural-weight=4' does not match the initial weights");
  }
}
