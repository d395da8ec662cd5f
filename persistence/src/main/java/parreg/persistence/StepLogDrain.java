package parreg.persistence;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * A node's start on an embedded H2 journal with a step log left behind (by a kill, or by H2 losing
 * acknowledged commits): moves the records the journal lacks into it, so that recovery replays one
 * journal. Damage stops the start ({@link RunEvents#tail} names it).
 *
 * <p>The rows are the ones pekko-persistence-jdbc 1.1.1 writes for these events: serializer {@link
 * KryoSerializer#IDENTIFIER}, empty manifests, no metadata, a writer UUID, the payload being the
 * stored envelope itself (the log holds exactly those bytes) and the log's write time, inserted in
 * one transaction.
 *
 * <p>When it moved records the log stays: H2 acknowledged the insert but may lose it on a kill
 * until its store header covers it ({@link H2Durability}; the chaos soak lost a drained batch, with
 * the 30 steps after it, when the log was deleted at once, and a {@code CHECKPOINT SYNC} does not
 * move the header). The node's step log takes the segments over ({@link StepLog#create}) and
 * releases them like its own. When the journal already held every record, the log is deleted: what
 * H2 recovered at its open is what the log would have restored.
 */
public final class StepLogDrain {
  private StepLogDrain() {}

  /**
   * Inserts the step log's records that the journal of {@code location} lacks, keeping the log when
   * there were any and deleting it otherwise (see the class comment).
   *
   * @return how many records were inserted
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
    if (tail.isEmpty()) {
      StepLog.delete(dir);
      return 0;
    }
    insert(c, pid, tail);
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
  }
}
