package parreg.actors;

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

/**
 * Serves a peer catching up the committed steps older than the peer actor's memory window: read
 * back from this node's own journal, with the event before them. A step whose checksum fails (the
 * serializer refuses it) or that does not link to the event before it is refused, never served. The
 * answer comes back to the peer actor as a {@link PeerActor.JournalAnswer}.
 */
final class JournalStepServer {
  private final ActorContext<PeerActor.Command> ctx;
  private final String persistenceId;

  JournalStepServer(ActorContext<PeerActor.Command> ctx, String persistenceId) {
    this.ctx = ctx;
    this.persistenceId = persistenceId;
  }

  /** Reads step {@code step}'s set for {@code replyTo} (a null set when it cannot be served). */
  void serve(long step, ActorRef<PeerActor.Command> replyTo) {
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
      if (e.sequenceNr() == step + 1
          && event instanceof TrainingActor.StepCommitted s
          && s.step() == step) {
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
