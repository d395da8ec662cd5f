package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.data.DatasetGenerator;
import parreg.device.data.PartitionFiles;

/**
 * The CLI's readers on the journal of a node that is running ({@link
 * parreg.persistence.JournalReading}): {@code predict --journal} on a node that is up and done
 * prints the model's prediction (the one it prints once the node has stopped) while the node keeps
 * answering {@code status}, and it is the model of the {@code model.json} the node wrote beside its
 * journal when its target was durable; during training {@code export} and {@code journal verify}
 * read a durable prefix (a committed step between the node's status before and after) and the node
 * goes on committing.
 */
@Tag("multiprocess")
class LiveJournalReadTest {
  @TempDir Path dir;

  private Path data() throws Exception {
    DatasetGenerator.generate(
        new DatasetGenerator.Spec(2000, 3, 1, 0.1, 5, true, PartitionFiles.Format.CSV),
        dir.resolve("data"));
    return dir.resolve("data/part-0.csv");
  }

  private static int adminPort(List<String> args) {
    return Integer.parseInt(args.get(args.indexOf("--admin-port") + 1));
  }

  private static DataCommandsTest.Run ok(String... args) {
    DataCommandsTest.Run r = DataCommandsTest.run(args);
    assertEquals(0, r.code(), String.join(" ", args) + "\n" + r.out() + r.err());
    return r;
  }

  @Test
  void predictReadsTheModelOfANodeThatIsUpAndDone() throws Exception {
    Path journal = dir.resolve("j");
    List<String> args =
        SoloNode.args(
            data().toString(),
            journal.toString(),
            "40",
            "--bias",
            "--learning-rate",
            "1/4",
            "--backend",
            "cpu");
    String[] predict = {
      "predict", "--journal", journal.toString(), "--participant", "0", "--x", "0.5,1,-1"
    };
    String live;
    try (NodeProcess node = NodeProcess.start(args, dir.resolve("node.log"), adminPort(args))) {
      ClusterRun.await(node, s -> "done".equals(s.get("state").asText()), "done");
      DataCommandsTest.Run r = ok(predict);
      live = r.out();
      assertTrue(r.err().contains("in use by a running node: reading a snapshot"), r.err());
      JsonNode after = node.status().orElseThrow(() -> new AssertionError("no status"));
      assertEquals("done", after.get("state").asText());
      assertEquals(40, after.get("committedStep").asLong());
    }
    DataCommandsTest.Run stopped = ok(predict);
    assertEquals(stopped.out(), live);
    assertTrue(stopped.err().isEmpty(), stopped.err());
    // the model the node wrote beside its journal once step 40 was durable
    Path model = journal.resolve("model.json");
    assertEquals(
        live,
        ok("predict", "--checkpoint", model.toString(), "--x", "0.5,1,-1").out(),
        "model.json");
    assertEquals(40, Checkpoint.fromFile(model).committedStep());
  }

  @Test
  void duringTrainingTheReadersSeeADurablePrefix() throws Exception {
    Path journal = dir.resolve("j");
    List<String> args =
        SoloNode.args(
            data().toString(),
            journal.toString(),
            "100000000",
            "--bias",
            "--learning-rate",
            "1/4",
            "--backend",
            "cpu");
    try (NodeProcess node = NodeProcess.start(args, dir.resolve("node.log"), adminPort(args))) {
      JsonNode before =
          // durable, not only committed: a reader sees what the journal acknowledged
          ClusterRun.await(node, s -> s.get("durableStep").asLong() >= 200, "step 200 durable");
      Path out = dir.resolve("m.json");
      ok("export", "--journal", journal.toString(), "--participant", "0", "--out", out.toString());
      JsonNode after = node.status().orElseThrow(() -> new AssertionError("no status"));
      long exported = Checkpoint.fromFile(out).committedStep();
      assertTrue(
          exported >= 1 && exported <= after.get("committedStep").asLong(),
          "exported step " + exported + ", node at " + after.get("committedStep"));
      assertTrue(
          exported >= before.get("durableStep").asLong(),
          "exported step " + exported + ", node was at " + before.get("committedStep"));
      // one snapshot after another while the node writes (and compacts) its journal
      long previous = exported;
      for (int k = 0; k < 5; k++) {
        Path again = dir.resolve("m" + k + ".json");
        ok(
            "export",
            "--journal",
            journal.toString(),
            "--participant",
            "0",
            "--out",
            again.toString());
        long step = Checkpoint.fromFile(again).committedStep();
        assertTrue(step >= previous, "step " + step + " after " + previous);
        previous = step;
      }
      DataCommandsTest.Run verify = ok("journal", "verify", "--journal", journal.toString());
      assertTrue(verify.out().contains(" good: "), verify.out());
      long later = after.get("committedStep").asLong();
      ClusterRun.await(node, s -> s.get("committedStep").asLong() > later, "steps go on");
    }
  }
}
