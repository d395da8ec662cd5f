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

  /**
   * The order of a persistence id's events, spelled along the primary key {@code (persistence_id,
   * sequence_number)}: H2 then reads them in the key's order (a long run's rows streamed, its first
   * or last one found at once) where {@code ORDER BY "sequence_number"} alone makes it read and
   * sort every row of the id.
   */
  private static final String BY_KEY = " ORDER BY \"persistence_id\", \"sequence_number\"";

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
            + " ORDER BY \"persistence_id\" DESC, \"sequence_number\" DESC LIMIT 1";
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
   * Every snapshot of {@code persistenceId}, decoded, ascending, read in one query: a live node
   * deletes its older snapshots as it takes new ones, so a list of sequence numbers read first may
   * name a snapshot that is gone by the time it is read.
   *
   * @throws JournalReadException when a row was written by another serializer or does not decode
   */
  public List<SnapshotRow> snapshots(String persistenceId) throws SQLException {
    String sql =
        "SELECT \"sequence_number\", \"created\", \"snapshot_ser_id\", \"snapshot_ser_manifest\","
            + " \"snapshot_payload\" FROM \"snapshot\" WHERE \"persistence_id\" = ?"
            + " ORDER BY \"sequence_number\"";
    List<SnapshotRow> found = new ArrayList<>();
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong(1);
          Chained value =
              decode("snapshot", persistenceId, seq, rs.getInt(3), rs.getString(4), rs.getBytes(5));
          found.add(new SnapshotRow(persistenceId, seq, rs.getLong(2), value.value(), value));
        }
      }
    }
    return found;
  }

  /**
   * Makes {@code connection}'s later reads one consistent view of the journal (a read-only
   * transaction at repeatable read: on PostgreSQL one snapshot of the database), so that a reader
   * of a journal a node is writing sees no row of one moment beside a row of another. The
   * transaction ends when the connection is closed.
   */
  public static void readConsistently(Connection connection) throws SQLException {
    connection.setAutoCommit(false);
    connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    connection.setReadOnly(true);
    if (connection.getMetaData().getDatabaseProductName().equals("H2")) {
      // Rows handed over as they are read rather than first copied into a temporary result: a
      // third less CPU for reading every event of a long run (BENCHMARKS.md, "Reading a journal").
      try (Statement s = connection.createStatement()) {
        s.execute("SET LAZY_QUERY_EXECUTION TRUE");
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
            + BY_KEY;
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
            + " AND \"deleted\" = FALSE"
            + BY_KEY;
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

  /**
   * The envelope of {@code persistenceId}'s event at {@code sequenceNr}, its checksum checked but
   * its object not decoded, or null when there is no such row (one marked deleted included).
   *
   * @throws JournalReadException when the row was written by another serializer or fails its
   *     checksum
   */
  public Chained eventEnvelopeAt(String persistenceId, long sequenceNr) throws SQLException {
    String sql =
        "SELECT \"event_ser_id\", \"event_ser_manifest\", \"event_payload\" FROM \"event_journal\""
            + " WHERE \"persistence_id\" = ? AND \"sequence_number\" = ?";
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, persistenceId);
      s.setLong(2, sequenceNr);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return envelope(
            "event",
            persistenceId,
            sequenceNr,
            rs.getInt(1),
            rs.getString(2),
            rs.getBytes(3),
            false);
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
            "SELECT \"sequence_number\" FROM \"event_journal\" WHERE \"persistence_id\" = ?"
                + " ORDER BY \"persistence_id\" DESC, \"sequence_number\" DESC LIMIT 1")) {
      // (Not MAX(): H2 answers that by reading every row of the id, this from the key's end.)
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /**
   * The persistence ids that have event rows (deleted ones included), in ascending order. For an
   * embedded node journal, which holds a handful of ids; on a shared database prefer {@link
   * #highestSequenceNr} for the ids in question.
   */
  public List<String> persistenceIds() throws SQLException {
    // One index lookup per id (the primary key starts with it) rather than a DISTINCT over every
    // row: a long run's journal holds millions of rows and a handful of ids. H2 starts a search
    // for "> id" at the id's first row and steps over all of its rows, so there the search starts
    // at the least string after the id but one (id + U+0001; U+0000 is not allowed in PostgreSQL
    // text, and no id holds a control character).
    boolean h2 = connection.getMetaData().getDatabaseProductName().equals("H2");
    List<String> ids = new ArrayList<>();
    try (PreparedStatement first =
            connection.prepareStatement(
                "SELECT \"persistence_id\" FROM \"event_journal\""
                    + " ORDER BY \"persistence_id\" LIMIT 1");
        PreparedStatement next =
            connection.prepareStatement(
                "SELECT \"persistence_id\" FROM \"event_journal\" WHERE \"persistence_id\" "
                    + (h2 ? ">=" : ">")
                    + " ? ORDER BY \"persistence_id\" LIMIT 1")) {
      PreparedStatement s = first;
      while (true) {
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return ids;
          }
          ids.add(rs.getString(1));
        }
        next.setString(1, ids.get(ids.size() - 1) + (h2 ? "\u0001" : ""));
        s = next;
      }
    }
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
            + " WHERE \"persistence_id\" = ?"
            + BY_KEY
            + " LIMIT 1";
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
