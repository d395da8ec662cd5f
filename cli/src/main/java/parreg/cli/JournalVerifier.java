package parreg.cli;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import parreg.persistence.ChainCheck;
import parreg.persistence.JournalReadException;
import parreg.persistence.JournalRows;
import parreg.persistence.RunEvents;
import parreg.protocol.TrainingState;

/**
 * Checks one persistence id of a journal as {@code journal verify} reports it: every event from the
 * first (the journal's, then its step log's), its checksum, its link to the one before it and its
 * replay (the training actor's checks, as recovery); then every snapshot: its checksum, its link to
 * the event at its sequence number and that it equals the state replayed up to there.
 */
final class JournalVerifier {
  private JournalVerifier() {}

  /** What a good persistence id holds. */
  record Summary(
      String persistenceId,
      long events,
      long unlinked,
      int snapshots,
      long committed,
      long inStepLog) {
    String line() {
      return checks()
          + (inStepLog == 0
              ? ""
              : " (the last " + inStepLog + " in the step log, not yet in the journal)");
    }

    private String checks() {
      String what =
          events
              + " events (RunStarted, steps 1.."
              + committed
              + "), "
              + snapshots
              + " snapshot"
              + (snapshots == 1 ? "" : "s");
      if (unlinked == 0) {
        return persistenceId
            + ": "
            + what
            + "; every checksum and link verified, every step recomputes";
      }
      if (unlinked == events) {
        return persistenceId
            + ": "
            + what
            + "; no checksums (a format version 1 journal): decoded and replayed,"
            + " every step recomputes, bit damage that still decodes is not detectable";
      }
      return persistenceId
          + ": "
          + what
          + "; events 1.."
          + unlinked
          + " carry no checksums (format version 1), the "
          + (events - unlinked)
          + " after them every checksum and link verified; every step recomputes";
    }
  }

  /**
   * @throws JournalReadException naming the first bad sequence number
   */
  static Summary verify(RunEvents events, String pid) throws SQLException {
    JournalRows rows = events.rows();
    // The snapshots first, whole: a live node deletes older ones while this reads its events.
    List<JournalRows.SnapshotRow> snapshots = rows.snapshots(pid);
    java.util.Set<Long> snapshotSeqs = new java.util.HashSet<>();
    snapshots.forEach(s -> snapshotSeqs.add(s.sequenceNr()));
    Map<Long, Long> hashes = new HashMap<>();
    Map<Long, TrainingState> states = new HashMap<>();
    TrainingState[] state = {TrainingState.empty()};
    long[] counts = new long[2]; // events, unlinked
    events.forEachEvent(
        pid,
        ChainCheck.fromStart(pid),
        false,
        e -> {
          state[0] = Checkpoint.replayRow(state[0], e, null);
          counts[0]++;
          if (!e.envelope().linked()) {
            counts[1]++;
          }
          if (snapshotSeqs.contains(e.sequenceNr())) {
            hashes.put(e.sequenceNr(), e.envelope().hash());
            states.put(e.sequenceNr(), state[0]);
          }
        });
    for (JournalRows.SnapshotRow s : snapshots) {
      long seq = s.sequenceNr();
      Long hash = hashes.get(seq);
      if (s.envelope().linked() && hash != null && s.envelope().link() != hash) {
        throw new JournalReadException(
            String.format(
                "snapshot %s #%d links to %016x, the chain hash of event #%d is %016x",
                pid, seq, s.envelope().link(), seq, hash),
            seq,
            null);
      }
      TrainingState replayed = states.get(seq);
      if (replayed != null && !replayed.equals(s.snapshot())) {
        throw new JournalReadException(
            "snapshot "
                + pid
                + " #"
                + seq
                + " differs from the state replayed up to event #"
                + seq
                + ": "
                + s.snapshot()
                + ", replayed "
                + replayed,
            seq,
            null);
      }
    }
    if (counts[0] == 0) {
      throw new JournalReadException("no events for " + pid);
    }
    long inStepLog = events.stepLog().after(pid, rows.highestSequenceNr(pid)).size();
    return new Summary(
        pid, counts[0], counts[1], snapshotSeqs.size(), state[0].committed(), inStepLog);
  }
}
