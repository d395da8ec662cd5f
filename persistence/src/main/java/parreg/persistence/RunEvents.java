package parreg.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The one owner of reading a run's events: the journal's rows ({@link JournalRows}), then the
 * records of its step log ({@link StepLog}, beside an embedded H2 journal) after the journal's last
 * sequence number, as one sequence checked by one {@link ChainCheck}. Every reader goes through
 * here: {@code predict}, {@code export}, {@code history}, {@code journal verify}, the admission of
 * a node's start ({@link JournalRuns}) and the move of the log's records into the journal at that
 * start ({@link StepLogDrain}), after which recovery replays the journal.
 *
 * <p>Records the journal already holds (the log keeps a few writes' worth after the journal has
 * them) are passed over; a torn tail is left out ({@link StepLogScan}); damage in the log is a
 * {@link JournalReadException} naming the first bad sequence number, as damage in the journal is.
 * Does not own the connection. Not thread-safe.
 */
public final class RunEvents {
  /** A snapshot a reader starts from, and the chain check positioned after it. */
  public record SnapshotStart(JournalRows.SnapshotRow snapshot, ChainCheck chain) {}

  private final JournalRows rows;
  private final KryoCodec codec;
  private final Path logDirectory;
  private StepLogScan.Contents log;

  /**
   * @param logDirectory the step log's directory, or null for a journal without one (PostgreSQL)
   */
  public RunEvents(Connection connection, KryoCodec codec, Path logDirectory) {
    this.rows = new JournalRows(connection, codec);
    this.codec = codec;
    this.logDirectory = logDirectory;
  }

  /** For a location: its step log where it has one ({@link JournalLocation#stepLogDirectory}). */
  public static RunEvents of(Connection connection, KryoCodec codec, JournalLocation location) {
    return new RunEvents(connection, codec, location.stepLogDirectory().orElse(null));
  }

  /** The journal's rows (snapshots, persistence ids, counts). */
  public JournalRows rows() {
    return rows;
  }

  /**
   * What the step log holds (read once; empty without one).
   *
   * @throws JournalReadException when the log is damaged
   */
  public StepLogScan.Contents stepLog() {
    if (log == null) {
      try {
        log =
            logDirectory == null
                ? StepLogScan.Contents.empty(null)
                : StepLogScan.read(logDirectory);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the step log " + logDirectory, e);
      }
    }
    return log;
  }

  /**
   * The events of {@code persistenceId} after {@code chain}'s position, in sequence order: the
   * journal's rows, then the step log's records, each checked against the chain before {@code each}
   * sees it. A record from the log has ordering 0 and its write time from the log.
   *
   * @throws JournalReadException naming the first bad sequence number
   */
  public void forEachEvent(
      String persistenceId,
      ChainCheck chain,
      boolean includeDeleted,
      Consumer<JournalRows.EventRow> each)
      throws SQLException {
    rows.forEachEvent(persistenceId, chain, includeDeleted, each);
    for (StepLogScan.Record r : stepLog().after(persistenceId, chain.lastSeq())) {
      Chained event;
      try {
        event = JournalEnvelope.open(codec, r.payload());
      } catch (KryoCodecException e) {
        throw undecodable(persistenceId, r, e);
      }
      chain.next(r.sequenceNr(), event);
      each.accept(
          new JournalRows.EventRow(
              persistenceId, r.sequenceNr(), 0, false, r.writtenAtMillis(), event.value(), event));
    }
  }

  /**
   * Where a reader of the model starts: the latest snapshot of {@code persistenceId} and the chain
   * check positioned there, so that only the events after it are read ({@link #forEachEvent}). The
   * snapshot proves that it belongs to the chain by its link, which must be the chain hash of the
   * stored event at its sequence number (that event's checksum is checked too); the events before
   * it are not read: their full check is {@code journal verify}'s, and a node's start's. A snapshot
   * without a link (format version 1) is trusted only after the events up to it are checked ({@link
   * #checkChain}).
   *
   * @return empty when the persistence id has no snapshot
   * @throws JournalReadException when the snapshot or the event at its sequence number does not
   *     decode, or the snapshot does not link to that event
   */
  public Optional<SnapshotStart> fromLatestSnapshot(String persistenceId) throws SQLException {
    Optional<JournalRows.SnapshotRow> found = rows.latestSnapshot(persistenceId);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    JournalRows.SnapshotRow snap = found.get();
    long seq = snap.sequenceNr();
    if (!snap.envelope().linked()) {
      return Optional.of(new SnapshotStart(snap, checkChain(persistenceId, seq)));
    }
    Chained event = eventEnvelopeAt(persistenceId, seq);
    if (event == null) {
      throw new JournalReadException(
          "event " + persistenceId + " #" + seq + " is missing (a snapshot was taken there)",
          seq,
          null);
    }
    if (event.hash() != snap.envelope().link()) {
      throw new JournalReadException(
          String.format(
              "snapshot %s #%d links to %016x, the chain hash of event #%d is %016x",
              persistenceId, seq, snap.envelope().link(), seq, event.hash()),
          seq,
          null);
    }
    return Optional.of(
        new SnapshotStart(snap, ChainCheck.afterSnapshot(persistenceId, seq, snap.envelope())));
  }

  /** The checked envelope of the event at {@code seq} (the journal's, else the log's), or null. */
  private Chained eventEnvelopeAt(String persistenceId, long seq) throws SQLException {
    Chained stored = rows.eventEnvelopeAt(persistenceId, seq);
    if (stored != null) {
      return stored;
    }
    for (StepLogScan.Record r : stepLog().after(persistenceId, seq - 1)) {
      if (r.sequenceNr() == seq) {
        return envelope(persistenceId, r);
      }
    }
    return null;
  }

  /** Every event of {@code persistenceId} after {@code afterSequenceNr} ({@link #forEachEvent}). */
  public List<JournalRows.EventRow> eventsAfter(String persistenceId, long afterSequenceNr)
      throws SQLException {
    List<JournalRows.EventRow> out = new ArrayList<>();
    ChainCheck chain =
        afterSequenceNr == 0
            ? ChainCheck.fromStart(persistenceId)
            : ChainCheck.unknownAfter(persistenceId, afterSequenceNr);
    forEachEvent(persistenceId, chain, false, out::add);
    return out;
  }

  /**
   * Checks the checksums and links of events 1..{@code through} without decoding them (the
   * journal's, then the log's), as {@link JournalRows#checkChain}.
   *
   * @throws JournalReadException naming the first bad or missing sequence number
   */
  public ChainCheck checkChain(String persistenceId, long through) throws SQLException {
    long journaled = Math.min(through, rows.highestSequenceNr(persistenceId));
    ChainCheck chain = rows.checkChain(persistenceId, journaled);
    for (StepLogScan.Record r : stepLog().after(persistenceId, journaled)) {
      if (r.sequenceNr() > through) {
        break;
      }
      chain.next(r.sequenceNr(), envelope(persistenceId, r));
    }
    if (chain.lastSeq() != through) {
      throw new JournalReadException(
          "event " + persistenceId + " #" + (chain.lastSeq() + 1) + " is missing",
          chain.lastSeq() + 1,
          null);
    }
    return chain;
  }

  /**
   * The step log's records of {@code persistenceId} that the journal lacks, checked: each against
   * its checksum and the chain from the journal's last event on (a gap after the journal's end is
   * named as a missing event).
   */
  public List<StepLogScan.Record> tail(String persistenceId) throws SQLException {
    long journaled = rows.highestSequenceNr(persistenceId);
    List<StepLogScan.Record> tail = stepLog().after(persistenceId, journaled);
    if (tail.isEmpty()) {
      return tail;
    }
    ChainCheck chain =
        journaled == 0
            ? ChainCheck.fromStart(persistenceId)
            : ChainCheck.unknownAfter(persistenceId, journaled - 1);
    if (journaled > 0) {
      rows.forEachEvent(persistenceId, chain, false, e -> {}); // the journal's last event
    }
    for (StepLogScan.Record r : tail) {
      chain.next(r.sequenceNr(), envelope(persistenceId, r));
    }
    return tail;
  }

  /** The highest sequence number of {@code persistenceId}, the step log's included. */
  public long highestSequenceNr(String persistenceId) throws SQLException {
    long journaled = rows.highestSequenceNr(persistenceId);
    StepLogScan.Contents l = stepLog();
    return persistenceId.equals(l.persistenceId()) ? Math.max(journaled, l.lastSeq()) : journaled;
  }

  private static Chained envelope(String persistenceId, StepLogScan.Record r) {
    try {
      return JournalEnvelope.check(r.payload());
    } catch (KryoCodecException e) {
      throw undecodable(persistenceId, r, e);
    }
  }

  private static JournalReadException undecodable(
      String persistenceId, StepLogScan.Record r, KryoCodecException e) {
    return new JournalReadException(
        "event "
            + persistenceId
            + " #"
            + r.sequenceNr()
            + " (step log) does not decode: "
            + e.getMessage(),
        r.sequenceNr(),
        e);
  }
}
