package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.JournalLocation;
import parreg.persistence.PostgresTestDatabase;

/**
 * A verifiable journal (issue 13 item 5) on the H2 journal of a real one-node run: bit flips in a
 * stored payload, a deleted event and two swapped events are named by {@code journal verify} (exit
 * 2, the first bad sequence number) and refused by {@code predict} and by the node's recovery; the
 * untouched journal verifies clean. Before, such rows read back with no error.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JournalVerifyTest {
  static final String PID = "parreg|parreg-run|p0";
  @TempDir static Path dir;
  static Path data;
  static Path config;
  static Path fresh;

  @BeforeAll
  static void aFinishedRun() throws Exception {
    data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n3,5\n");
    config = Files.writeString(dir.resolve("snap.conf"), "parreg.snapshot-every = 20\n");
    fresh = dir.resolve("fresh");
    NodeProcess.Result r = NodeProcess.run(node(fresh.toString(), "60"), Duration.ofSeconds(90));
    assertEquals(0, r.exitCode(), r.output());
  }

  static List<String> node(String journal, String steps) throws Exception {
    return SoloNode.args(
        data.toString(),
        journal,
        steps,
        "--exit-when-done",
        "--backend",
        "cpu",
        "--config",
        config.toString());
  }

  /** A copy of the fresh run's journal, to damage. */
  static Path copy(String name) throws Exception {
    Path d = Files.createDirectories(dir.resolve(name));
    Files.copy(fresh.resolve("journal.mv.db"), d.resolve("journal.mv.db"));
    return d;
  }

  static byte[] payload(Connection c, String table, long seq) throws Exception {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT \""
                + table
                + "_payload\" FROM \""
                + (table.equals("event") ? "event_journal" : "snapshot")
                + "\" WHERE \"persistence_id\" = ? AND \"sequence_number\" = ?")) {
      s.setString(1, PID);
      s.setLong(2, seq);
      try (ResultSet rs = s.executeQuery()) {
        assertTrue(rs.next(), table + " #" + seq);
        return rs.getBytes(1);
      }
    }
  }

  static void store(Connection c, String table, long seq, byte[] bytes) throws Exception {
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE \""
                + (table.equals("event") ? "event_journal" : "snapshot")
                + "\" SET \""
                + table
                + "_payload\" = ? WHERE \"persistence_id\" = ? AND \"sequence_number\" = ?")) {
      s.setBytes(1, bytes);
      s.setString(2, PID);
      s.setLong(3, seq);
      assertEquals(1, s.executeUpdate());
    }
  }

  /**
   * Flips bit {@code bit} of byte {@code at} (from the end when negative) of a stored payload, by
   * SQL.
   */
  static void flip(String journal, String table, long seq, int at, int bit) throws Exception {
    try (Connection c = JournalLocation.parse(journal).openExistingConnection()) {
      byte[] b = payload(c, table, seq);
      int i = at >= 0 ? at : b.length + at;
      b[i] ^= (byte) (1 << bit);
      store(c, table, seq, b);
    }
  }

  static void dropSnapshots(String journal) throws Exception {
    try (Connection c = JournalLocation.parse(journal).openExistingConnection()) {
      c.createStatement().executeUpdate("DELETE FROM \"snapshot\"");
    }
  }

  static CommandLineTest.Run verify(String journal) {
    return CommandLineTest.run("journal", "verify", "--journal", journal);
  }

  static void assertNamed(CommandLineTest.Run r, String fragment) {
    CommandLineTest.assertUserError(r, fragment);
    assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
  }

  @Test
  void aFreshJournalVerifiesClean() {
    CommandLineTest.Run r = verify(fresh.toString());
    assertEquals(0, r.code(), r.err());
    CommandLineTest.Run p =
        CommandLineTest.run(
            "journal",
            "verify",
            "--journal",
            fresh.toString(),
            "--participant",
            "0",
            "--run-name",
            "parreg-run");
    assertEquals(0, p.code(), p.err());
  }

  @Test
  void bitFlipsInStoredPayloadsAreNamedAndRefused() throws Exception {
    // (sequence number, byte, bit): RunStarted's body, a step's checksum field, link, body and last
    // byte, the format-version byte.
    long[][] flips = {{1, 40, 3}, {17, 2, 0}, {30, 7, 5}, {45, 20, 1}, {52, -1, 7}, {60, 0, 2}};
    long latest = latestSnapshot(fresh);
    for (long[] f : flips) {
      Path j = copy("flip-" + f[0]);
      flip(j.toString(), "event", f[0], (int) f[1], (int) f[2]);
      assertNamed(verify(j.toString()), "event " + PID + " #" + f[0] + " ");
      CommandLineTest.Run predict =
          CommandLineTest.run(
              "predict", "--journal", j.toString(), "--participant", "0", "--x", "2");
      if (f[0] >= latest) {
        // predict reads the latest snapshot, the event it links to and the events after it.
        assertNamed(predict, "#" + f[0] + " ");
      } else {
        // Before the latest snapshot: journal verify's (and a node's start's) to find.
        assertEquals(0, predict.code(), predict.err());
      }
    }
  }

  static long latestSnapshot(Path journal) throws Exception {
    try (Connection c = JournalLocation.parse(journal.toString()).openExistingConnection();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT MAX(\"sequence_number\") FROM \"snapshot\"")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aFlippedSnapshotIsNamedAndExportRefusesIt() throws Exception {
    Path j = copy("snapshot");
    // A write of several events snapshots after it: the latest is near the end.
    long seq = latestSnapshot(j);
    assertTrue(seq >= 40, "snapshots every 20 events, two kept: " + seq);
    flip(j.toString(), "snapshot", seq, 30, 4);
    assertNamed(
        verify(j.toString()),
        "snapshot " + PID + " #" + seq + " does not decode: checksum mismatch");
    Path out = dir.resolve("m.json");
    assertNamed(
        CommandLineTest.run(
            "export", "--journal", j.toString(), "--participant", "0", "--out", out.toString()),
        "#" + seq + " does not decode: checksum mismatch");
    assertTrue(!Files.exists(out));
  }

  @Test
  void aDeletedEventIsCaughtByTheChain() throws Exception {
    Path j = copy("deleted");
    try (Connection c = JournalLocation.parse(j.toString()).openExistingConnection()) {
      // Remove event #30 and renumber the ones after it, so the sequence numbers show no gap.
      List<byte[]> after = new ArrayList<>();
      for (long s = 31; s <= 61; s++) {
        after.add(payload(c, "event", s));
      }
      for (int k = 0; k < after.size(); k++) {
        store(c, "event", 30 + k, after.get(k));
      }
      c.createStatement()
          .executeUpdate("DELETE FROM \"event_journal\" WHERE \"sequence_number\" = 61");
    }
    assertNamed(verify(j.toString()), "event " + PID + " #30 does not follow #29");
  }

  @Test
  void twoSwappedEventsAreCaughtByTheChain() throws Exception {
    Path j = copy("swapped");
    try (Connection c = JournalLocation.parse(j.toString()).openExistingConnection()) {
      byte[] a = payload(c, "event", 45);
      byte[] b = payload(c, "event", 46);
      store(c, "event", 45, b);
      store(c, "event", 46, a);
    }
    assertNamed(verify(j.toString()), "event " + PID + " #45 does not follow #44");
    dropSnapshots(j.toString()); // predict then replays from the first event
    assertNamed(
        CommandLineTest.run("predict", "--journal", j.toString(), "--participant", "0", "--x", "2"),
        "#45 does not follow #44");
  }

  @Test
  void recoveryRefusesADamagedJournal() throws Exception {
    Path j = copy("recovery");
    flip(
        j.toString(), "event", 50, 25, 6); // before the latest snapshot (#60): checked at the start
    NodeProcess.Result r = NodeProcess.run(node(j.toString(), "80"), Duration.ofSeconds(90));
    assertNotEquals(0, r.exitCode(), r.output());
    assertTrue(
        r.output().contains("event " + PID + " #50 does not decode: checksum mismatch"),
        r.output());
    assertNamed(verify(j.toString()), "#50 does not decode");
  }

  @Test
  void theGoldenV1JournalVerifiesWithoutChecksums() throws Exception {
    Path j = Files.createDirectories(dir.resolve("golden"));
    try (var in = getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, j.resolve("journal.mv.db"));
    }
    StringBuilder out = new StringBuilder();
    java.io.PrintStream saved = System.out;
    java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(buffer, true));
    CommandLineTest.Run r;
    try {
      r = verify(j.toString());
    } finally {
      System.setOut(saved);
    }
    assertEquals(0, r.code(), r.err());
    out.append(buffer);
    assertTrue(
        out.toString().contains("201 events (RunStarted, steps 1..200), 2 snapshots; no checksums"),
        out.toString());
    assertEquals(1, out.toString().strip().lines().count(), out.toString());
  }

  @Test
  void postgresJournalsAreVerifiedToo() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      NodeProcess.Result r = NodeProcess.run(node(db.url(), "25"), Duration.ofSeconds(90));
      assertEquals(0, r.exitCode(), r.output());
      assertEquals(0, verify(db.url()).code());
      flip(db.url(), "event", 12, 30, 2);
      assertNamed(verify(db.url()), "event " + PID + " #12 does not decode: checksum mismatch");
      dropSnapshots(db.url()); // predict then replays from the first event
      assertNamed(
          CommandLineTest.run("predict", "--journal", db.url(), "--participant", "0", "--x", "2"),
          "#12 ");
    }
  }
}
