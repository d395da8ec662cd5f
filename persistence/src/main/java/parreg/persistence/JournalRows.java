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

  /** One event row, decoded; {@code envelope} says its format version, link and chain hash. */
  public record EventRow(
      String persistenceId,
      long sequenceNr,
      long ordering,
      boolean deleted,
      long writeTimestamp,
      Object event,
      Chained envelope) {}

  /** One snapshot row, decoded; {@code envelope} says its format version and link. */
  public record SnapshotRow(
      String persistenceId, long sequenceNr, long created, Object snapshot, Chained envelope) {}

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
        Chained value =
            decode("snapshot", persistenceId, seq, rs.getInt(3), rs.getString(4), rs.getBytes(5));
        return Optional.of(
            new SnapshotRow(persistenceId, seq, rs.getLong(2), value.value(), value));
      }
    }
  }

  /**
   * The sequence numbers of {@code persistenceId}'s snapshots, ascending (for {@code journal
   * verify}).
   */
  public List<Long> snapshotSequenceNrs(String persistenceId) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT \"sequence_number\" FROM \"snapshot\" WHERE \"persistence_id\" = ? ORDER BY \"sequence_number\"")) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
    }
    return seqs;
  }

  /**
   * The snapshot of {@code persistenceId} at {@code sequenceNr}, decoded (its checksum checked).
   *
   * @throws JournalReadException when the row was written by another serializer or does not decode
   */
  public Optional<SnapshotRow> snapshotAt(String persistenceId, long sequenceNr)
      throws SQLException {
    String sql =
        "SELECT \"created\", \"snapshot_ser_id\", \"snapshot_ser_manifest\", \"snapshot_payload\""
            + " FROM \"snapshot\" WHERE \"persistence_id\" = ? AND \"sequence_number\" = ?";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      s.setLong(2, sequenceNr);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        Chained value =
            decode(
                "snapshot",
                persistenceId,
                sequenceNr,
                rs.getInt(2),
                rs.getString(3),
                rs.getBytes(4));
        return Optional.of(
            new SnapshotRow(persistenceId, sequenceNr, rs.getLong(1), value.value(), value));
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
   * The same events as {@link #eventsAfter(String, long, boolean)}, handed to {@code each} one at a
   * time as they are decoded, so that a reader of a long run ({@code history}) keeps only what it
   * needs of each event instead of every event at once. The chain is checked from the first event
   * when {@code afterSequenceNr} is 0, else from the first event read.
   *
   * @throws JournalReadException when a row was written by another serializer, does not decode (a
   *     checksum mismatch) or breaks the chain ({@link ChainCheck})
   */
  public void forEachEventAfter(
      String persistenceId,
      long afterSequenceNr,
      boolean includeDeleted,
      java.util.function.Consumer<EventRow> each)
      throws SQLException {
    ChainCheck chain =
        afterSequenceNr == 0
            ? ChainCheck.fromStart(persistenceId)
            : ChainCheck.unknownAfter(persistenceId, afterSequenceNr);
    forEachEvent(persistenceId, chain, includeDeleted, each);
  }

  /**
   * The events after {@code chain}'s last sequence number (from a snapshot: {@link
   * ChainCheck#afterSnapshot}), each checked against the chain before {@code each} sees it.
   *
   * @throws JournalReadException as {@link #forEachEventAfter}
   */
  public void forEachEvent(
      String persistenceId,
      ChainCheck chain,
      boolean includeDeleted,
      java.util.function.Consumer<EventRow> each)
      throws SQLException {
    long afterSequenceNr = chain.lastSeq();
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
          Chained event =
              decode("event", persistenceId, seq, rs.getInt(5), rs.getString(6), rs.getBytes(7));
          chain.next(seq, event);
          each.accept(
              new EventRow(
                  persistenceId,
                  seq,
                  rs.getLong(2),
                  rs.getBoolean(3),
                  rs.getLong(4),
                  event.value(),
                  event));
        }
      }
    }
  }

  /**
   * Checks the checksums and links of {@code persistenceId}'s events 1..{@code through} without
   * decoding them (cheap: what {@code predict} and a node's start check before they trust a
   * snapshot at {@code through}), and returns the check positioned there.
   *
   * @throws JournalReadException naming the first bad sequence number, or the first missing one
   *     when the events end before {@code through}
   */
  public ChainCheck checkChain(String persistenceId, long through) throws SQLException {
    ChainCheck chain = ChainCheck.fromStart(persistenceId);
    String sql =
        "SELECT \"sequence_number\", \"event_ser_id\", \"event_ser_manifest\", \"event_payload\""
            + " FROM \"event_journal\" WHERE \"persistence_id\" = ? AND \"sequence_number\" <= ?"
            + " AND \"deleted\" = FALSE ORDER BY \"sequence_number\"";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      s.setLong(2, through);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong(1);
          chain.next(
              seq,
              envelope(
                  "event",
                  persistenceId,
                  seq,
                  rs.getInt(2),
                  rs.getString(3),
                  rs.getBytes(4),
                  false));
        }
      }
    }
    if (chain.lastSeq() != through) {
      throw new JournalReadException(
          "event "
              + persistenceId
              + " #"
              + (chain.lastSeq() + 1)
              + " is missing (the"
              + " events end at #"
              + chain.lastSeq()
              + ", a snapshot was taken at #"
              + through
              + ")",
          chain.lastSeq() + 1,
          null);
    }
    return chain;
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
   * included (the first event says what the journal is about even when later ones were deleted), or
   * empty when it has none.
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
        Chained event =
            decode("event", persistenceId, seq, rs.getInt(5), rs.getString(6), rs.getBytes(7));
        return Optional.of(
            new EventRow(
                persistenceId,
                seq,
                rs.getLong(2),
                rs.getBoolean(3),
                rs.getLong(4),
                event.value(),
                event));
      }
    }
  }

  /**
   * Whether the database has the journal table at all: false for a database no node has prepared
   * yet (a new shared PostgreSQL database, say), where there is nothing to read.
   */
  public boolean hasJournalTable() throws SQLException {
    // Asked of the catalog rather than read from a failed query's error: H2 reports a missing
    // table under three codes (42102, 42103 with candidates, 42104 in a database with no table at
    // all, which a node killed before its schema's first commit leaves), PostgreSQL under 42P01.
    // Both catalogs hold the name in lower case as created (quoted in H2, folded in PostgreSQL).
    try (ResultSet rs =
        connection.getMetaData().getTables(null, null, "event_journal", new String[] {"TABLE"})) {
      while (rs.next()) {
        String schema = rs.getString("TABLE_SCHEM");
        if (schema == null || schema.equals(connection.getSchema())) {
          return true;
        }
      }
      return false;
    }
  }

  private Chained decode(
      String kind, String persistenceId, long seq, int serId, String manifest, byte[] payload) {
    return envelope(kind, persistenceId, seq, serId, manifest, payload, true);
  }

  private Chained envelope(
      String kind,
      String persistenceId,
      long seq,
      int serId,
      String manifest,
      byte[] payload,
      boolean decode) {
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
              + ")",
          seq,
          null);
    }
    if (payload == null) {
      throw new JournalReadException(
          kind + " " + persistenceId + " #" + seq + " has no payload", seq, null);
    }
    try {
      return decode ? JournalEnvelope.open(codec, payload) : JournalEnvelope.check(payload);
    } catch (KryoCodecException e) {
      throw new JournalReadException(
          kind + " " + persistenceId + " #" + seq + " does not decode: " + e.getMessage(), seq, e);
    }
  }
}
