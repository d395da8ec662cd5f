package parreg.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads what pekko-persistence-jdbc 1.1.1 wrote, with plain JDBC and no ActorSystem: a persistence
 * id's latest snapshot and its events, decoded through {@link KryoCodec}. For the CLI ({@code
 * predict}, {@code export}, {@code evaluate}, {@code history}) and for tests (each step journaled
 * exactly once).
 *
 * <p>The plugin stores each event's and snapshot's own serialized bytes (not a wrapper): {@code
 * event_journal(event_payload, event_ser_id, event_ser_manifest, sequence_number, deleted, …)} and
 * {@code snapshot(snapshot_payload, snapshot_ser_id, snapshot_ser_manifest, sequence_number,
 * created, …)}. A row whose ser id is not {@link KryoSerializer#IDENTIFIER} is reported, not
 * guessed at.
 *
 * <p>Does not own the connection. Not thread-safe (a JDBC connection is not).
 */
public final class JournalRows {

  /** One event row, decoded. */
  public record EventRow(
      String persistenceId,
      long sequenceNr,
      long ordering,
      boolean deleted,
      long writeTimestamp,
      Object event) {}

  /** One snapshot row, decoded. */
  public record SnapshotRow(String persistenceId, long sequenceNr, long created, Object snapshot) {}

  private final Connection connection;
  private final KryoCodec codec;

  public JournalRows(Connection connection, KryoCodec codec) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.codec = Objects.requireNonNull(codec, "codec");
  }

  /**
   * The snapshot with the highest sequence number of {@code persistenceId}, if any (as recovery
   * picks it with the default criteria).
   *
   * @throws JournalReadException when the row was written by another serializer or does not decode
   */
  public Optional<SnapshotRow> latestSnapshot(String persistenceId) throws SQLException {
    String sql =
        "SELECT \"sequence_number\", \"created\", \"snapshot_ser_id\", \"snapshot_ser_manifest\","
            + " \"snapshot_payload\" FROM \"snapshot\" WHERE \"persistence_id\" = ?"
            + " ORDER BY \"sequence_number\" DESC LIMIT 1";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        long seq = rs.getLong(1);
        Object value =
            decode("snapshot", persistenceId, seq, rs.getInt(3), rs.getString(4), rs.getBytes(5));
        return Optional.of(new SnapshotRow(persistenceId, seq, rs.getLong(2), value));
      }
    }
  }

  /**
   * The events of {@code persistenceId} with a sequence number above {@code afterSequenceNr}, in
   * sequence order, without rows marked deleted (as recovery replays them).
   */
  public List<EventRow> eventsAfter(String persistenceId, long afterSequenceNr)
      throws SQLException {
    return eventsAfter(persistenceId, afterSequenceNr, false);
  }

  /**
   * The events of {@code persistenceId} with a sequence number above {@code afterSequenceNr}, in
   * sequence order; rows marked deleted only when {@code includeDeleted}.
   *
   * @throws JournalReadException when a row was written by another serializer or does not decode
   */
  public List<EventRow> eventsAfter(
      String persistenceId, long afterSequenceNr, boolean includeDeleted) throws SQLException {
    List<EventRow> rows = new ArrayList<>();
    forEachEventAfter(persistenceId, afterSequenceNr, includeDeleted, rows::add);
    return rows;
  }

  /**
   * The same events as {@link #eventsAfter(String, long, boolean)}, handed to {@code each} one at
   * a time as they are decoded, so that a reader of a long run ({@code history}) keeps only what
   * it needs of each event instead of every event at once.
   *
   * @throws JournalReadException when a row was written by another serializer or does not decode
   */
  public void forEachEventAfter(
      String persistenceId, long afterSequenceNr, boolean includeDeleted, java.util.function.Consumer<EventRow> each)
      throws SQLException {
    String sql =
        "SELECT \"sequence_number\", \"ordering\", \"deleted\", \"write_timestamp\","
            + " \"event_ser_id\", \"event_ser_manifest\", \"event_payload\" FROM \"event_journal\""
            + " WHERE \"persistence_id\" = ? AND \"sequence_number\" > ?"
            + (includeDeleted ? "" : " AND \"deleted\" = FALSE")
            + " ORDER BY \"sequence_number\"";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      s.setLong(2, afterSequenceNr);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong(1);
          Object event =
              decode("event", persistenceId, seq, rs.getInt(5), rs.getString(6), rs.getBytes(7));
          each.accept(
              new EventRow(persistenceId, seq, rs.getLong(2), rs.getBoolean(3), rs.getLong(4), event));
        }
      }
    }
  }

  /** The number of event rows of {@code persistenceId}, deleted ones included. */
  public long countEvents(String persistenceId) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT COUNT(*) FROM \"event_journal\" WHERE \"persistence_id\" = ?")) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The number of event rows per persistence id (deleted ones included), ordered by id. */
  public Map<String, Long> countEventsPerPersistenceId() throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT \"persistence_id\", COUNT(*) FROM \"event_journal\""
                    + " GROUP BY \"persistence_id\" ORDER BY \"persistence_id\"")) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getLong(2));
      }
    }
    return counts;
  }

  /** The highest event sequence number of {@code persistenceId}, 0 when it has none. */
  public long highestSequenceNr(String persistenceId) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT MAX(\"sequence_number\") FROM \"event_journal\" WHERE \"persistence_id\" = ?")) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1); // SQL NULL reads as 0
      }
    }
  }

  /**
   * The persistence ids that have event rows (deleted ones included), in ascending order. For an
   * embedded node journal, which holds a handful of ids; on a shared database prefer {@link
   * #highestSequenceNr} for the ids in question.
   */
  public List<String> persistenceIds() throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT DISTINCT \"persistence_id\" FROM \"event_journal\" ORDER BY \"persistence_id\"")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  /**
   * The event of {@code persistenceId} with the lowest sequence number, a row marked deleted
   * included (the first event says what the journal is about even when later ones were
   * deleted), or empty when it has none.
   *
   * @throws JournalReadException when the row was written by another serializer or does not decode
   */
  public Optional<EventRow> firstEvent(String persistenceId) throws SQLException {
    String sql =
        "SELECT \"sequence_number\", \"ordering\", \"deleted\", \"write_timestamp\","
            + " \"event_ser_id\", \"event_ser_manifest\", \"event_payload\" FROM \"event_journal\""
            + " WHERE \"persistence_id\" = ? ORDER BY \"sequence_number\" LIMIT 1";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        long seq = rs.getLong(1);
        Object event = decode("event", persistenceId, seq, rs.getInt(5), rs.getString(6), rs.getBytes(7));
        return Optional.of(
            new EventRow(persistenceId, seq, rs.getLong(2), rs.getBoolean(3), rs.getLong(4), event));
      }
    }
  }

  /**
   * Whether the database has the journal table at all: false for a database no node has
   * prepared yet (a new shared PostgreSQL database, say), where there is nothing to read.
   */
  public boolean hasJournalTable() throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.executeQuery("SELECT 1 FROM \"event_journal\" WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      // H2: 42S02 (TABLE_OR_VIEW_NOT_FOUND, error code 42102); PostgreSQL: 42P01 (undefined_table).
      if ("42S02".equals(e.getSQLState()) || "42P01".equals(e.getSQLState()) || e.getErrorCode() == 42102) {
        return false;
      }
      throw e;
    }
  }

  private Object decode(
      String kind, String persistenceId, long seq, int serId, String manifest, byte[] payload) {
    if (serId != KryoSerializer.IDENTIFIER) {
      throw new JournalReadException(
          kind
              + " "
              + persistenceId
              + " #"
              + seq
              + " was written by serializer id "
              + serId
              + (manifest == null || manifest.isEmpty() ? "" : " (manifest " + manifest + ")")
              + ", not by parreg's KryoSerializer (id "
              + KryoSerializer.IDENTIFIER
              + ")");
    }
    try {
      return codec.decode(payload);
    } catch (KryoCodecException e) {
      throw new JournalReadException(
          kind + " " + persistenceId + " #" + seq + " does not decode: " + e.getMessage(), e);
    }
  }
}
