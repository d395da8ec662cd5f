package parreg.actors;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.KryoCodec;
import parreg.persistence.StepLog;

/**
 * The step log in front of an embedded H2 journal ({@link StepLog}), in one of two roles.
 *
 * <ul>
 *   <li><b>Acknowledging</b> ({@code --sync-commit}, issue 13 item 6): each committed event is
 *       sealed into the journal's chain here as it is committed, and a step's sealed bytes are
 *       appended before the next step may start: the step is then durable.
 *   <li><b>Guarding</b> (the default mode): a journal write's events are sealed and appended here
 *       just before the write is handed to the journal, and a step is still durable only once the
 *       journal acknowledged it. H2 can lose its last acknowledged commits on a kill once it reuses
 *       file space (a three-node crash test saw step 121 reported durable and recovered at 108);
 *       the log, written before each H2 write and kept for {@code keepWrites} writes after it,
 *       holds them, and the next start moves them back into the journal.
 * </ul>
 *
 * In both roles the journal child is handed the same sealed bytes ({@link StepJournal.Write}), so
 * the journal and the log hold one chain, and as the journal acknowledges writes the log's segments
 * are deleted.
 *
 * <p>{@code RunStarted} is sealed but not appended, and no step is appended before the journal
 * holds it (acknowledging: the first step waits, {@link WriteBehind#lagsTooFar}; guarding: it is
 * written alone, {@link WriteBehind#write}), so a journal's runs are always known from the journal
 * itself. Not thread-safe: the training actor owns it, through {@link WriteBehind}.
 */
final class StepLogWriter implements AutoCloseable {
  private final StepLog log;
  private final KryoCodec codec;
  private final int keepWrites;
  private final boolean acknowledges;

  /** The sequence numbers the journal acknowledged, newest last, up to keepWrites of them. */
  private final ArrayDeque<Long> acknowledged = new ArrayDeque<>();

  private long head;
  private long lastSeq;

  private StepLogWriter(
      StepLog log, KryoCodec codec, int keepWrites, boolean acknowledges, long head, long lastSeq) {
    this.log = log;
    this.codec = codec;
    this.keepWrites = keepWrites;
    this.acknowledges = acknowledges;
    this.head = head;
    this.lastSeq = lastSeq;
  }

  /**
   * A fresh log after a recovery that ended at {@code lastSeq}, whose last event has chain hash
   * {@code head} ({@link TrainingActor.JournalRecovered}).
   */
  static StepLogWriter open(
      NodeSettings.StepLogSettings s,
      String persistenceId,
      KryoCodec codec,
      long head,
      long lastSeq)
      throws IOException {
    return new StepLogWriter(
        StepLog.create(s.directory(), persistenceId, s.segmentBytes(), s.fsync()),
        codec,
        s.keepWrites(),
        s.acknowledges(),
        head,
        lastSeq);
  }

  /**
   * Whether a step is durable once it is in the log ({@code --sync-commit}); else the log guards
   * the journal's writes and a step is durable once the journal holds it.
   */
  boolean acknowledges() {
    return acknowledges;
  }

  /**
   * Seals {@code event} as the next event of the chain and, for a step, appends it to the log.
   *
   * @throws IOException when the append failed (a full disk): the step is not in the log, and the
   *     chain's head is unchanged
   */
  Chained seal(TrainingActor.Event event) throws IOException {
    return sealAll(List.of(event))[0];
  }

  /**
   * Guarding: seals {@code events} as the chain's next events and appends their steps to the log in
   * one write ({@link StepLog#appendAll}); what {@link #seal} does for each, with one system call
   * for a journal write of hundreds of steps rather than one a step.
   *
   * @throws IOException when the append failed (a full disk): the chain's head is unchanged
   */
  Chained[] sealAll(List<TrainingActor.Event> events) throws IOException {
    Chained[] sealed = new Chained[events.size()];
    List<byte[]> steps = new ArrayList<>(events.size());
    long link = head;
    long firstStepSeq = -1;
    for (int i = 0; i < sealed.length; i++) {
      TrainingActor.Event event = events.get(i);
      sealed[i] = JournalEnvelope.seal(codec, event, link);
      link = sealed[i].hash();
      if (event instanceof TrainingActor.StepCommitted) {
        if (firstStepSeq < 0) {
          firstStepSeq = lastSeq + 1 + i;
        } else if (firstStepSeq + steps.size() != lastSeq + 1 + i) {
          // steps follow each other in the log; only RunStarted, which opens a journal, is no step
          throw new IllegalStateException("a step log write must hold consecutive steps");
        }
        steps.add(sealed[i].payload());
      }
    }
    log.appendAll(firstStepSeq, System.currentTimeMillis(), steps);
    head = link;
    lastSeq += sealed.length;
    return sealed;
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
