package parreg.actors;

import java.io.IOException;
import java.util.ArrayDeque;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.KryoCodec;
import parreg.persistence.StepLog;

/**
 * What {@code --sync-commit} on an embedded H2 journal puts in front of the write-behind journal
 * (issue 13 item 6): each committed event is sealed into the journal's chain here, and a step's
 * sealed bytes are appended to the {@link StepLog} before the next step may start: the step is then
 * acknowledged. The journal child is handed the same sealed bytes ({@link StepJournal.Write}), so
 * the journal and the log hold one chain; it writes them behind in groups, as in the default mode,
 * and as it acknowledges writes the log's segments are deleted.
 *
 * <p>{@code RunStarted} is sealed but not appended: the first step waits until the journal holds it
 * ({@link WriteBehind#lagsTooFar}), so a journal's runs are always known from the journal itself.
 * Not thread-safe: the training actor owns it, through {@link WriteBehind}.
 */
final class SyncCommitLog implements AutoCloseable {
  private final StepLog log;
  private final KryoCodec codec;
  private final int keepWrites;

  /** The sequence numbers the journal acknowledged, newest last, up to keepWrites of them. */
  private final ArrayDeque<Long> acknowledged = new ArrayDeque<>();

  private long head;
  private long lastSeq;

  private SyncCommitLog(StepLog log, KryoCodec codec, int keepWrites, long head, long lastSeq) {
    this.log = log;
    this.codec = codec;
    this.keepWrites = keepWrites;
    this.head = head;
    this.lastSeq = lastSeq;
  }

  /**
   * A fresh log after a recovery that ended at {@code lastSeq}, whose last event has chain hash
   * {@code head} ({@link TrainingActor.JournalRecovered}).
   */
  static SyncCommitLog open(
      NodeSettings.StepLogSettings s,
      String persistenceId,
      KryoCodec codec,
      long head,
      long lastSeq)
      throws IOException {
    return new SyncCommitLog(
        StepLog.create(s.directory(), persistenceId, s.segmentBytes(), s.fsync()),
        codec,
        s.keepWrites(),
        head,
        lastSeq);
  }

  /**
   * Seals {@code event} as the next event of the chain and, for a step, appends it to the log.
   *
   * @throws IOException when the append failed (a full disk): the step is not acknowledged
   */
  Chained seal(TrainingActor.Event event) throws IOException {
    Chained c = JournalEnvelope.seal(codec, event, head);
    if (event instanceof TrainingActor.StepCommitted) {
      log.append(lastSeq + 1, System.currentTimeMillis(), c.payload());
    }
    head = c.hash();
    lastSeq++;
    return c;
  }

  /**
   * The journal acknowledged every event up to {@code sequenceNr}: deletes the segments it has held
   * for {@code keepWrites} writes since (H2 can lose its last acknowledged commits on a kill once
   * it reuses file space; BENCHMARKS.md, "Journal size").
   */
  void journaled(long sequenceNr) throws IOException {
    acknowledged.addLast(sequenceNr);
    while (acknowledged.size() > keepWrites) {
      log.release(acknowledged.removeFirst());
    }
  }

  /** The bytes of the log's segments. */
  long bytes() {
    return log.bytes();
  }

  @Override
  public void close() throws IOException {
    log.close();
  }
}
