package parreg.training.journal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import parreg.persistence.Chained;
import parreg.persistence.H2Durability;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.KryoCodec;
import parreg.persistence.StepLog;
import parreg.protocol.JournalEvent;
import parreg.protocol.StepCommitted;
import parreg.settings.NodeSettings;

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
 *       the log, written before each H2 write and kept until H2's store header covers the write
 *       ({@link H2Durability}) and {@code keepWrites} writes have followed it, holds them, and the
 *       next start moves them back into the journal.
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
public final class StepLogWriter implements AutoCloseable {
  private final StepLog log;
  private final KryoCodec codec;
  private final int keepWrites;
  private final boolean acknowledges;

  private final H2Durability durability;

  /** A journal write acknowledged: its last sequence number, and H2's version after it. */
  private record Ack(long sequenceNr, long version) {}

  /** The writes the journal acknowledged whose segments are still kept, newest last. */
  private final ArrayDeque<Ack> acknowledged = new ArrayDeque<>();

  private long head;
  private long lastSeq;

  private StepLogWriter(
      StepLog log,
      KryoCodec codec,
      int keepWrites,
      H2Durability durability,
      boolean acknowledges,
      long head,
      long lastSeq) {
    this.log = log;
    this.codec = codec;
    this.keepWrites = keepWrites;
    this.durability = durability;
    this.acknowledges = acknowledges;
    this.head = head;
    this.lastSeq = lastSeq;
  }

  /**
   * The log after a recovery that ended at {@code lastSeq}, whose last event has chain hash {@code
   * head} ({@link StepJournal.Recovered}): a fresh one, or the one the start kept after moving its
   * records into the journal ({@link StepLog#create}), which then ends at {@code lastSeq} too.
   *
   * @throws IllegalStateException when a kept log does not end where the journal does
   */
  public static StepLogWriter open(
      NodeSettings.StepLogSettings s,
      String persistenceId,
      KryoCodec codec,
      long head,
      long lastSeq)
      throws IOException {
    StepLog log = StepLog.create(s.directory(), persistenceId, s.segmentBytes(), s.fsync());
    if (log.lastSeq() >= 0 && log.lastSeq() != lastSeq) {
      log.close();
      throw new IllegalStateException(
          "it ends at #" + log.lastSeq() + " where the journal recovered to #" + lastSeq);
    }
    return new StepLogWriter(
        log, codec, s.keepWrites(), s.durability(), s.acknowledges(), head, lastSeq);
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
  Chained seal(JournalEvent event) throws IOException {
    return sealAll(List.of(event))[0];
  }

  /**
   * Guarding: seals {@code events} as the chain's next events and appends their steps to the log in
   * one write ({@link StepLog#appendAll}); what {@link #seal} does for each, with one system call
   * for a journal write of hundreds of steps rather than one a step.
   *
   * @throws IOException when the append failed (a full disk): the chain's head is unchanged
   */
  Chained[] sealAll(List<JournalEvent> events) throws IOException {
    Chained[] sealed = new Chained[events.size()];
    List<byte[]> steps = new ArrayList<>(events.size());
    long link = head;
    long firstStepSeq = -1;
    for (int i = 0; i < sealed.length; i++) {
      JournalEvent event = events.get(i);
      sealed[i] = JournalEnvelope.seal(codec, event, link);
      link = sealed[i].hash();
      if (event instanceof StepCommitted) {
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
   * The journal acknowledged every event up to {@code sequenceNr}: deletes the segments of the
   * writes that H2's store header now covers and that {@code keepWrites} writes have followed (H2
   * can lose acknowledged commits on a kill once it reuses file space, back to the chunk its header
   * names: {@link H2Durability}; BENCHMARKS.md, "Journal size and durability"). Until the header
   * moves on, the log keeps growing: on a file that only grows H2 does not rewrite its header, and
   * a kill loses nothing there.
   */
  void journaled(long sequenceNr) throws IOException {
    acknowledged.addLast(new Ack(sequenceNr, durability.version()));
    while (acknowledged.size() > keepWrites
        && durability.covers(acknowledged.peekFirst().version())) {
      log.release(acknowledged.removeFirst().sequenceNr());
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
