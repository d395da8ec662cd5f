package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.RunContract;

/**
 * A journal written by the first version must still replay, with every check, to the golden bits;
 * export and predict work from it in fresh processes; export never overwrites.
 */
class GoldenJournalTest {
  @TempDir Path dir;
  Path journal;

  @BeforeEach
  void copyFixture() throws Exception {
    // H2 may touch a database file it opens: work on a copy, never on the fixture.
    journal = Files.createDirectories(dir.resolve("node-1"));
    try (InputStream in =
        getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, journal.resolve("journal.mv.db"));
    }
  }

  @Test
  void theV1JournalReplaysToTheGoldenBits() {
    Checkpoint cp = Checkpoint.fromJournal(journal.toString(), 1, null);
    assertEquals(200, cp.committedStep());
    assertEquals(0x3690000000000000L, Double.doubleToRawLongBits(cp.parameters()[0]));
    assertEquals(RunContract.seed(2, 0), cp.contract(), "the seed contract");
    assertTrue(JournalCheck.describe(journal.toString(), 1, 200).startsWith("ok"));
  }

  @Test
  void exportThenPredictInFreshProcessesAndNeverOverwrite() throws Exception {
    Path out = dir.resolve("model.json");
    NodeProcess.Result e =
        NodeProcess.run(
            List.of(
                "export",
                "--journal",
                journal.toString(),
                "--participant",
                "1",
                "--out",
                out.toString()),
            Duration.ofSeconds(60));
    assertEquals(0, e.exitCode(), e.output());
    NodeProcess.Result p =
        NodeProcess.run(
            List.of("predict", "--checkpoint", out.toString(), "--x", "2"), Duration.ofSeconds(60));
    assertEquals(0, p.exitCode(), p.output());
    assertEquals("1.401298464324817E-45", p.output().strip());
    byte[] before = Files.readAllBytes(out);
    NodeProcess.Result again =
        NodeProcess.run(
            List.of(
                "export",
                "--journal",
                journal.toString(),
                "--participant",
                "1",
                "--out",
                out.toString()),
            Duration.ofSeconds(60));
    assertEquals(2, again.exitCode(), again.output());
    assertTrue(again.output().contains("already exists"), again.output());
    assertEquals(new String(before), Files.readString(out), "the existing file is untouched");
    try (var files = Files.list(dir)) {
      assertEquals(2, files.count(), "no temporary file left behind: " + dir);
    }
  }

  @Test
  void aTamperedCheckpointIsRefused() throws Exception {
    Path out = dir.resolve("model.json");
    Checkpoint.fromJournal(journal.toString(), 1, null).writeTo(out);
    Files.writeString(out, Files.readString(out).replace("\"1/4\"", "\"1/8\""));
    CommandLineTest.Run r =
        CommandLineTest.run("predict", "--checkpoint", out.toString(), "--x", "2");
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("contract digest does not match"), r.err());
  }

  @Test
  void predictChecksTheFeatureCount() {
    CommandLineTest.Run r =
        CommandLineTest.run(
            "predict", "--journal", journal.toString(), "--participant", "1", "--x", "1,2");
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("the model has 1 feature(s); got 2 value(s)"), r.err());
  }
}
