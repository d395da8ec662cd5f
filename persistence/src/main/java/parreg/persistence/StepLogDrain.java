package parreg.persistence;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/**
 * A node's start on an embedded H2 journal with a step log left behind (by a kill, or by H2 losing
 * its last acknowledged commits): moves the records the journal lacks into it, then deletes the
 * log, so that recovery replays one journal and the node appends to a fresh log. A torn tail is
 * dropped with the log (it was never acknowledged); damage stops the start ({@link RunEvents#tail}
 * names it).
 *
 * <p>The rows are the ones pekko-persistence-jdbc 1.1.1 writes for these events: serializer {@link
 * KryoSerializer#IDENTIFIER}, empty manifests, no metadata, a writer UUID, the payload being the
 * stored envelope itself (the log holds exactly those bytes) and the log's write time. They are
 * inserted in one transaction, and the database is checkpointed with a sync before the log is
 * deleted, so a kill at any point leaves every record in the journal or in the log.
 */
public final class StepLogDrain {
  private StepLogDrain() {}

  /**
   * Moves the step log of {@code location} into its journal (see the class comment).
   *
   * @return how many records were moved
   * @throws JournalReadException when the log is damaged or does not follow the journal
   */
  public static int drain(Connection c, KryoCodec codec, JournalLocation location)
      throws SQLException, IOException {
    Path dir = location.stepLogDirectory().orElse(null);
    if (dir == null || StepLogScan.segments(dir).isEmpty()) {
      return 0;
    }
    RunEvents events = RunEvents.of(c, codec, location);
    String pid = events.stepLog().persistenceId();
    List<StepLogScan.Record> tail = pid == null ? List.of() : events.tail(pid);
    if (!tail.isEmpty()) {
      insert(c, pid, tail);
    }
    StepLog.delete(dir);
    return tail.size();
  }

  private static void insert(Connection c, String pid, List<StepLogScan.Record> tail)
      throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    String writer = UUID.randomUUID().toString();
    try (PreparedStatement s =
        c.prepareStatement(
            "INSERT INTO \"event_journal\" (\"deleted\", \"persistence_id\", \"sequence_number\","
                + " \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\","
                + " \"event_ser_id\", \"event_ser_manifest\") VALUES (FALSE, ?, ?, ?, ?, '', ?, ?, '')")) {
      for (StepLogScan.Record r : tail) {
        s.setString(1, pid);
        s.setLong(2, r.sequenceNr());
        s.setString(3, writer);
        s.setLong(4, r.writtenAtMillis());
        s.setBytes(5, r.payload());
        s.setInt(6, KryoSerializer.IDENTIFIER);
        s.addBatch();
      }
      s.executeBatch();
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(auto);
    }
    try (Statement s = c.createStatement()) {
      s.execute("CHECKPOINT SYNC");
    }
  }
}
