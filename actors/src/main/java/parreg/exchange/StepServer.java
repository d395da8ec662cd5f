package parreg.exchange;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import org.slf4j.Logger;
import parreg.device.LocalSums;
import parreg.persistence.Chained;
import parreg.protocol.StepCommitted;
import parreg.settings.NodeSettings;

/**
 * Serves a peer the committed steps it asks for ({@link PeerActor.ContributionRequest}): this
 * node's contribution, with the committed set once the step is committed here (a peer catching up
 * checks its own entry against its recomputation). Recent steps come from the peer actor's memory
 * window ({@link ContributionWindow}); older committed steps are read back from this node's own
 * journal, with the event before them: a step whose checksum fails (the serializer refuses it) or
 * that does not link to the event before it is refused, never served. A journal read comes back to
 * the peer actor as a {@link PeerActor.JournalAnswer}.
 *
 * <p>Not thread-safe: the peer actor owns it.
 */
final class StepServer {
  private final ActorContext<PeerActor.Command> ctx;
  private final String persistenceId;
  private final String run;
  private final int me;
  private final ContributionWindow window;
  private final ContributionParts parts;

  StepServer(
      ActorContext<PeerActor.Command> ctx,
      NodeSettings settings,
      ContributionWindow window,
      ContributionParts parts) {
    this.ctx = ctx;
    this.persistenceId = settings.persistenceId();
    this.run = settings.contract().digest();
    this.me = settings.participant();
    this.window = window;
    this.parts = parts;
  }

  /** Answers {@code r} from memory, or from the journal when it asks for an older step. */
  void serve(PeerActor.ContributionRequest r, long committed) {
    LocalSums[] set = window.get(r.step());
    if (set != null && set[me] != null) {
      parts.send(
          r.replyTo(),
          new PeerActor.Contribution(
              run, r.step(), me, set[me], r.step() <= committed ? set.clone() : null),
          System.nanoTime());
    } else if (r.step() <= committed) {
      fromJournal(r.step(), r.replyTo());
    }
  }

  /** Passes on a step read back from the journal (nothing when it could not be). */
  void answer(PeerActor.JournalAnswer a) {
    if (a.set() == null) {
      ctx.getLog().warn("step {} asked for by a peer is not in this node's journal", a.step());
    } else {
      parts.send(
          a.replyTo(),
          new PeerActor.Contribution(run, a.step(), me, a.set()[me], a.set()),
          System.nanoTime());
    }
  }

  /** Reads step {@code step}'s set for {@code replyTo} (a null set when it cannot be served). */
  private void fromJournal(long step, ActorRef<PeerActor.Command> replyTo) {
    JdbcReadJournal journal =
        PersistenceQuery.get(ctx.getSystem())
            .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    ctx.pipeToSelf(
        journal
            .currentEventsByPersistenceId(persistenceId, step, step + 1)
            .runWith(Sink.seq(), ctx.getSystem()),
        (found, failure) -> {
          if (failure != null) {
            ctx.getLog()
                .error(
                    "refusing to serve step {} from this node's journal: {}",
                    step,
                    failure.getMessage());
            return new PeerActor.JournalAnswer(step, null, replyTo);
          }
          LocalSums[] set = servedSet(step, found, ctx.getLog());
          return new PeerActor.JournalAnswer(step, set, replyTo);
        });
  }

  /**
   * Step {@code step}'s set from events {@code step} and {@code step + 1} (itself), if they chain;
   * else null, the reason logged.
   */
  static LocalSums[] servedSet(long step, List<EventEnvelope> found, Logger log) {
    Chained before = null;
    for (EventEnvelope e : found) {
      Chained c = e.event() instanceof Chained x ? x : null;
      Object event = c != null ? c.value() : e.event();
      if (e.sequenceNr() == step + 1 && event instanceof StepCommitted s && s.step() == step) {
        if (c != null && before != null && !c.follows(before.hash())) {
          log.error(
              "refusing to serve step {}: journal event #{} does not link to the event before it"
                  + " (an event removed, reordered or changed)",
              step,
              e.sequenceNr());
          return null;
        }
        return s.contributions();
      }
      before = c;
    }
    return null;
  }
}
