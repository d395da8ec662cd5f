package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.protocol.RunStarted;

/**
 * "One node journal, one run" (SPEC section 7) as {@link JournalRuns#admit} decides it, on rows as
 * the journal plugin writes them: a RunStarted first event per persistence id.
 */
class JournalRunsTest {
  static final KryoCodec CODEC = KryoCodec.fromConfig(ConfigFactory.load());
  static final PartitionInfo DATA_0 = new PartitionInfo(0, "aa", 3, 1);
  static final PartitionInfo DATA_1 = new PartitionInfo(1, "bb", 2, 1);

  @TempDir Path dir;

  static RunContract contract(String runName, String rate, double w0) {
    return new RunContract(
        runName,
        RunContract.SCHEMA,
        RunContract.CHECKPOINT_CONTRACT,
        RunContract.LOSS,
        rate,
        new double[] {w0},
        1,
        false,
        2,
        "files",
        0,
        parreg.device.ReductionOrder.VERSION);
  }

  /**
   * Writes a run's opening event (and {@code steps} more rows standing for steps) as the plugin
   * would.
   */
  static void write(Connection c, RunContract contract, int participant, int steps)
      throws SQLException {
    String pid = JournalRuns.persistenceId(contract.runName(), participant);
    Object opening = new RunStarted(contract, new PartitionInfo[] {DATA_0, DATA_1});
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO \"event_journal\" (\"deleted\", \"persistence_id\","
                + " \"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\","
                + " \"event_ser_id\", \"event_ser_manifest\") VALUES (FALSE, ?, ?, 'w', 0, '', ?, ?, '')")) {
      for (int seq = 1; seq <= steps + 1; seq++) {
        s.setString(1, pid);
        s.setLong(2, seq);
        s.setBytes(3, CODEC.encode(seq == 1 ? opening : "a step"));
        s.setInt(4, KryoSerializer.IDENTIFIER);
        s.executeUpdate();
      }
    }
  }

  Connection h2() throws SQLException {
    JournalLocation location = JournalLocation.parse(dir.resolve("j").toString());
    Connection c = location.openConnection();
    JournalSchema.createIfNotExists(c, location.dialect());
    return c;
  }

  static JournalRuns.Admission admit(
      JournalRuns runs, RunContract c, int participant, PartitionInfo data, boolean named)
      throws SQLException {
    return runs.admit(c, participant, data, named);
  }

  static JournalRuns.Refused refused(JournalRuns.Admission a, String field) {
    JournalRuns.Refused r = assertInstanceOf(JournalRuns.Refused.class, a);
    assertEquals(field, r.field(), r.message());
    assertTrue(r.message().contains(field), r.message());
    return r;
  }

  /**
   * A node killed after H2 made the database file but before the schema's first table was committed
   * leaves a database with no table at all ("this database is empty" in H2's words): the same start
   * again finds nothing journaled, as for no file.
   */
  @Test
  void aDatabaseWithoutTablesHoldsNoRun() throws Exception {
    JournalLocation location = JournalLocation.parse(dir.resolve("j").toString());
    location.openConnection().close();
    try (Connection c = location.openExistingConnection()) {
      JournalRuns runs = new JournalRuns(c, CODEC, false, "journal j");
      assertInstanceOf(
          JournalRuns.Fresh.class,
          admit(runs, contract("parreg-run", "1/4", 0.0), 0, DATA_0, false));
    }
  }

  @Test
  void anotherFeatureCountIsNamedAsSuch() {
    RunContract two =
        new RunContract(
            "parreg-run",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/4",
            new double[] {0.0, 0.0},
            2,
            false,
            2,
            "files",
            0,
            parreg.device.ReductionOrder.VERSION);
    String d = JournalRuns.difference(contract("parreg-run", "1/4", 0.0), two, false).orElseThrow();
    assertTrue(d.startsWith("features: 1 in the journal, 2 given"), d);
  }

  @Test
  void aNodeJournalHoldsOneRun() throws Exception {
    RunContract run = contract("parreg-run", "1/4", 0.0);
    try (Connection c = h2()) {
      JournalRuns runs = new JournalRuns(c, CODEC, false, "journal j");
      assertInstanceOf(
          JournalRuns.Fresh.class, admit(runs, run, 0, DATA_0, false), "an empty journal");
      write(c, run, 0, 5);

      assertEquals(
          new JournalRuns.Restart(6), admit(runs, run, 0, DATA_0, false), "the same start again");
      refused(admit(runs, contract("parreg-run", "1/8", 0.0), 0, DATA_0, false), "learningRate");
      refused(admit(runs, run, 0, new PartitionInfo(0, "cc", 3, 1), false), "data");

      // The same journal under another (default) run name: the issue's "second run waiting for
      // ever".
      JournalRuns.Refused other =
          refused(
              admit(runs, contract("seed-like", "1/4", 3.0), 0, DATA_0, false), "initialWeights");
      assertTrue(other.anotherRun(), other.message());
      // ... unless that new name was given on purpose.
      assertInstanceOf(
          JournalRuns.Fresh.class, admit(runs, contract("seed-like", "1/4", 3.0), 0, DATA_0, true));
      // A name given explicitly that is the run already there is a restart of it, checked as such.
      refused(admit(runs, contract("parreg-run", "1/8", 0.0), 0, DATA_0, true), "learningRate");
      // Another participant's node on this node's journal.
      refused(admit(runs, run, 1, DATA_1, false), "participant");
      refused(admit(runs, run, 1, DATA_1, true), "participant");
    }
  }

  @Test
  void readersFindTheRunOfAParticipant() throws Exception {
    try (Connection c = h2()) {
      JournalRuns runs = new JournalRuns(c, CODEC, false, "journal j");
      assertThrows(IllegalArgumentException.class, () -> runs.persistenceIdOf(0, null));
      write(c, contract("a", "1/4", 0.0), 0, 1);
      assertEquals("parreg|a|p0", runs.persistenceIdOf(0, null));
      write(c, contract("b", "1/4", 0.0), 0, 1);
      assertTrue(
          assertThrows(IllegalArgumentException.class, () -> runs.persistenceIdOf(0, null))
              .getMessage()
              .contains("several runs"));
      assertEquals("parreg|b|p0", runs.persistenceIdOf(0, "b"));
      assertThrows(IllegalArgumentException.class, () -> runs.persistenceIdOf(0, "c"));
      assertThrows(IllegalArgumentException.class, () -> runs.persistenceIdOf(1, null));
    }
  }

  @Test
  void aSharedJournalHoldsManyRunsButOneContractPerRunName() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      JournalLocation location = db.location();
      assertTrue(location.toString().contains("POSTGRES"));
      try (Connection c = location.openConnection()) {
        JournalRuns runs = JournalRuns.of(c, CODEC, location);
        RunContract run = contract("parreg-run", "1/4", 0.0);
        assertInstanceOf(
            JournalRuns.Fresh.class, admit(runs, run, 0, DATA_0, false), "no tables yet");
        JournalSchema.createIfNotExists(c, location.dialect());
        write(c, run, 0, 2);

        assertEquals(new JournalRuns.Restart(3), admit(runs, run, 0, DATA_0, false));
        refused(admit(runs, contract("parreg-run", "1/8", 0.0), 0, DATA_0, false), "learningRate");
        refused(admit(runs, run, 0, new PartitionInfo(0, "cc", 3, 1), false), "data");
        // Participant 1 joins the run that participant 0 started: the contract must be the same.
        assertInstanceOf(JournalRuns.Fresh.class, admit(runs, run, 1, DATA_1, false));
        refused(admit(runs, contract("parreg-run", "1/8", 0.0), 1, DATA_1, false), "learningRate");
        // Other runs under other names live side by side in a shared database.
        assertInstanceOf(
            JournalRuns.Fresh.class, admit(runs, contract("other", "1/8", 0.0), 0, DATA_0, false));
      }
    }
  }
}
