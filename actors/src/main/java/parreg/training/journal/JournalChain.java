package parreg.training.journal;

import org.apache.pekko.persistence.typed.EventAdapter;
import org.apache.pekko.persistence.typed.EventSeq;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
import parreg.persistence.ChainCheck;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.KryoCodec;
import parreg.protocol.JournalEvent;
import parreg.protocol.TrainingState;

/**
 * Where the journal's chain is made and checked (issue 13 item 5): the event and snapshot adapters
 * of one {@link StepJournal} incarnation. The writer knows the previous event, so each event is
 * sealed here ({@link JournalEnvelope}) with the chain hash of the one before it, and a snapshot
 * with the hash of the event at its sequence number; on recovery each event read must link to the
 * one before it (or to the snapshot recovery started from), and its checksum was checked when the
 * serializer read it. A failed check fails recovery, which stops the node naming the event.
 *
 * <p>Pekko calls {@code toJournal} for the events of a write in order, and saves a snapshot only
 * after the write it follows and before the next command, so the chain's head is then the hash of
 * the snapshot's event. Journals of format version 1 (no envelope) replay as before; the chain
 * starts at the first event appended to them (its link to the version-1 event before it is not
 * checked: see {@link ChainCheck}).
 *
 * <p>With a step log (an H2 journal) the events of a write were sealed already, in the same chain,
 * by the step log ({@link StepLogWriter}): those bytes are stored as they are, so the journal and
 * the log hold the same bytes, and each must link to the head here (else the write fails).
 */
final class JournalChain {
  private final String persistenceId;
  private final KryoCodec codec;
  private ChainCheck chain;

  /** The events of the write being persisted as the step log sealed them, or null. */
  private Chained[] sealed;

  private int nextSealed;

  JournalChain(String persistenceId, KryoCodec codec) {
    this.persistenceId = persistenceId;
    this.codec = codec;
    this.chain = ChainCheck.fromStart(persistenceId);
  }

  /** What the next event links to (after recovery: the chain hash of the last event replayed). */
  long head() {
    return chain.headKnown() ? chain.head() : JournalEnvelope.GENESIS;
  }

  /** The next write's events were sealed already (null: seal them here). */
  void sealedAlready(Chained[] events) {
    sealed = events;
    nextSealed = 0;
  }

  final EventAdapter<JournalEvent, Object> events =
      new EventAdapter<>() {
        @Override
        public Object toJournal(JournalEvent e) {
          Chained c;
          if (sealed != null && nextSealed < sealed.length) {
            c = sealed[nextSealed++];
            if (c.value() != e || c.link() != head()) {
              throw new IllegalStateException(
                  "the step log sealed another chain than the journal's: event "
                      + (chain.lastSeq() + 1)
                      + " links to "
                      + Long.toHexString(c.link())
                      + ", the journal's head is "
                      + Long.toHexString(head()));
            }
          } else {
            c = JournalEnvelope.seal(codec, e, head());
          }
          chain.next(-1, c);
          return c;
        }

        @Override
        public String manifest(JournalEvent e) {
          return "";
        }

        @Override
        public EventSeq<JournalEvent> fromJournal(Object stored, String manifest) {
          Chained c = stored instanceof Chained x ? x : versionOne(stored);
          chain.next(-1, c); // throws naming the event: recovery fails
          return EventSeq.single((JournalEvent) c.value());
        }
      };

  final SnapshotAdapter<TrainingState> snapshots =
      new SnapshotAdapter<>() {
        @Override
        public Object toJournal(TrainingState state) {
          return JournalEnvelope.seal(codec, state, head());
        }

        @Override
        public TrainingState fromJournal(Object stored) {
          Chained c = stored instanceof Chained x ? x : versionOne(stored);
          TrainingState state = (TrainingState) c.value();
          // RunStarted is event 1 and step k is event k+1: a snapshot's sequence number.
          long seq = state.started() ? state.committed() + 1 : 0;
          chain = ChainCheck.afterSnapshot(persistenceId, seq, c);
          return state;
        }
      };

  /**
   * A version-1 event or snapshot, as the serializer returns it: no link (its hash is not relied
   * on).
   */
  private Chained versionOne(Object value) {
    byte[] bytes = codec.encode(value);
    return new Chained(
        KryoCodec.FORMAT_VERSION,
        value,
        JournalEnvelope.GENESIS,
        JournalEnvelope.chainHash(bytes),
        bytes);
  }
}
