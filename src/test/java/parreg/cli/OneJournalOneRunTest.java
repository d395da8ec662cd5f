package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalRows;
import parreg.persistence.KryoCodec;

/**
 * A node journal belongs to one run (SPEC section 7, issue 13 item 1): a finished one-node run's
 * journal, restarted with other data or flags, is refused at once with exit 2 naming the differing
 * field, and the journal is left as it was. Before, a start whose default run name differed (seed
 * data instead of a file) began a second run in the same journal and waited for ever; the refusals
 * below run in this JVM and return before any actor system starts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneJournalOneRunTest {
  @TempDir static Path dir;
  static Path journal;
  static Path data;

  @BeforeAll
  static void aFinishedRun() throws Exception {
    data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n3,6\n");
    journal = dir.resolve("node-0");
    NodeProcess.Result r =
        NodeProcess.run(
            SoloNode.args(
                data.toString(), journal.toString(), "3", "--exit-when-done", "--backend", "cpu"),
            Duration.ofSeconds(60));
    assertEquals(0, r.exitCode(), r.output());
  }

  /**
   * A start on the finished run's journal; its node flags replaced or extended by {@code extra}
   * pairs.
   */
  static String[] start(Path journal, Path data, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "0",
                "--participants",
                "1",
                "--port",
                "25101",
                "--seed-nodes",
                "127.0.0.1:25101",
                "--data",
                data.toString(),
                "--journal",
                journal.toString(),
                "--steps",
                "3",
                "--solver",
                "gd",
                "--learning-rate",
                "1/4",
                "--backend",
                "cpu"));
    for (int i = 0; i + 1 < extra.length; i += 2) {
      int at = a.indexOf(extra[i]);
      if (at >= 0) {
        a.set(at + 1, extra[i + 1]);
      } else {
        a.add(extra[i]);
        a.add(extra[i + 1]);
      }
    }
    if (a.get(a.indexOf("--data") + 1).equals("seed")) {
      // the seed run fixes its rate: the fixed-rate file run's flag goes
      a.remove(a.indexOf("--learning-rate") + 1);
      a.remove("--learning-rate");
    }
    return a.toArray(String[]::new);
  }

  static Map<String, Long> rows() throws Exception {
    try (Connection c = JournalLocation.parse(journal.toString()).openExistingConnection()) {
      return new JournalRows(c, KryoCodec.fromConfig(ConfigFactory.load()))
          .countEventsPerPersistenceId();
    }
  }

  void assertRefused(String field, String... extra) throws Exception {
    Map<String, Long> before = rows();
    CommandLineTest.Run r = CommandLineTest.run(start(journal, data, extra));
    CommandLineTest.assertUserError(r, field);
    assertTrue(r.err().contains("nothing was written"), r.err());
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
    assertEquals(before, rows(), "the journal is unchanged");
  }

  @Test
  void seedDataOnAFileRunsJournalIsRefused() throws Exception {
    // The seed run has another default run name: before, a second run started in this journal.
    // (The first field that differs: the seed contract's loss term is the seed's own bytes.)
    assertRefused(
        "differs in loss",
        "--data",
        "seed",
        "--participants",
        "2",
        "--seed-nodes",
        "127.0.0.1:25101,127.0.0.1:25102");
    assertEquals(Map.of("parreg|parreg-run|p0", 4L), rows());
  }

  @Test
  void otherFlagsOrDataAreRefusedByField() throws Exception {
    assertRefused("learningRate", "--learning-rate", "1/8");
    assertRefused("batchSize", "--batch-size", "1");
    assertRefused("initialWeights", "--initial-weights", "1");
    assertRefused(
        "participants", "--participants", "2", "--seed-nodes", "127.0.0.1:25101,127.0.0.1:25102");
    Path other = Files.writeString(dir.resolve("b.csv"), "x1,y\n1,2\n2,5\n3,6\n");
    assertRefused("other data", "--data", other.toString());
  }

  @Test
  void anotherParticipantsNodeOnThisJournalIsRefused() throws Exception {
    assertRefused(
        "participant 0 there, 1 given",
        "--participant",
        "1",
        "--participants",
        "2",
        "--seed-nodes",
        "127.0.0.1:25101,127.0.0.1:25102");
  }

  @Test
  void aNewRunNamedOnPurposeStartsBesideTheFirst() throws Exception {
    Path copy = Files.createDirectories(dir.resolve("node-0-copy"));
    Files.copy(journal.resolve("journal.mv.db"), copy.resolve("journal.mv.db"));
    int port = NodeProcess.freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                start(
                    copy,
                    data,
                    "--port",
                    "" + port,
                    "--seed-nodes",
                    "127.0.0.1:" + port,
                    "--admin-port",
                    "" + NodeProcess.freePort(),
                    "--run-name",
                    "second",
                    "--learning-rate",
                    "1/8")));
    args.add("--exit-when-done");
    NodeProcess.Result r = NodeProcess.run(args, Duration.ofSeconds(60));
    assertEquals(0, r.exitCode(), r.output());
    CommandLineTest.Run p =
        CommandLineTest.run(
            "predict", "--journal", copy.toString(), "--participant", "0", "--x", "1");
    CommandLineTest.assertUserError(p, "several runs");
  }
}
