package parreg.training.journal;

import java.time.Duration;
import java.util.Arrays;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.JournalPersistFailed;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;
import parreg.metrics.NodeMetrics;
import parreg.protocol.JournalEvent;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;

/**
 * The training actor's journal: the event-sourced child whose events ({@link RunStarted}, then one
 * {@link StepCommitted} per step) and snapshots ({@link TrainingState}, every N events) are the
 * checkpoint.
 *
 * <p>Why a child and not the training actor itself: an {@code EventSourcedBehavior} stashes every
 * command while a write is in flight, so a training actor that persisted each step could not commit
 * the next one meanwhile. Here the training actor keeps committing in memory and hands over
 * everything not yet durable in one {@link Write} whenever the previous write was acknowledged: one
 * journal write for many events, behind the step, never ahead of it.
 *
 * <p>Call order: recovery ends with {@link Recovered} (or {@link Failed}) to the owner; then each
 * {@link Write} is answered with {@link Written} once its events are durable. The owner sends one
 * write at a time. A failed write stops this actor; it is restarted with back-off, recovers, and
 * tells the owner {@link Recovered} again, so the owner re-sends what is not durable. Applying an
 * event re-checks it ({@link TrainingState#apply}): the journal never holds a step that does not
 * recompute. Every event and snapshot is written with a checksum and linked to the event before it,
 * and checked so on recovery ({@link JournalChain}).
 */
public final class StepJournal
    extends EventSourcedBehavior<StepJournal.Command, JournalEvent, TrainingState> {

  public interface Command {}

  /** What the journal tells its owner; see the call order above. */
  public interface Reply {}

  /**
   * Recovery finished (again, after a restart of this actor): the durable state, the last sequence
   * number, the chain hash the next event links to, the last step event replayed (null where a
   * snapshot covered every step; an exact run's summary is computed from it) and the parameters
   * that step was computed at (a penalised descent's stop rule needs them; null where that event
   * is).
   */
  public record Recovered(
      TrainingState state,
      long sequenceNr,
      long chainHead,
      StepCommitted lastReplayed,
      double[] lastReplayedFrom)
      implements Reply {}

  /** The last write is durable; {@code durableStep} is the journal's last step now. */
  public record Written(long durableStep, long sequenceNr) implements Reply {}

  public record Snapshotted(long sequenceNr) implements Reply {}

  /**
   * The journal failed; {@code diskFull} when its cause was a full disk (see {@link
   * parreg.persistence.JournalErrors}).
   */
  public record Failed(String reason, boolean diskFull) implements Reply {}

  /**
   * Persist these events, in this order, in one journal write; {@code sealed}: their stored bytes,
   * already sealed into the chain by the step log ({@link StepLogWriter}), or null: sealed here.
   */
  record Write(JournalEvent[] events, parreg.persistence.Chained[] sealed) implements Command {}

  private final ActorContext<Command> ctx;
  private final ActorRef<Reply> owner;

  /** The last step event applied (replayed or persisted), for {@link Recovered}. */
  private StepCommitted lastReplayed;

  /** The parameters before {@link #lastReplayed}. */
  private double[] lastReplayedFrom;

  private final int snapshotEvery;

  /**
   * Seals what is written and checks what is replayed: checksum and chain ({@link JournalChain}).
   */
  private final JournalChain chain;

  private final NodeMetrics metrics;

  /** When the write in flight was asked for (the owner sends one at a time). */
  private long writeStartNanos;

  public static Behavior<Command> create(
      String persistenceId, int snapshotEvery, ActorRef<Reply> owner) {
    return Behaviors.setup(ctx -> new StepJournal(ctx, persistenceId, snapshotEvery, owner));
  }

  private StepJournal(
      ActorContext<Command> ctx, String persistenceId, int snapshotEvery, ActorRef<Reply> owner) {
    super(
        PersistenceId.ofUniqueId(persistenceId),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
    this.ctx = ctx;
    this.owner = owner;
    this.snapshotEvery = snapshotEvery;
    this.chain = new JournalChain(persistenceId, codec(ctx));
    this.metrics = NodeMetrics.get(ctx.getSystem());
  }

  /** The table of the system's KryoSerializer (events hold no actor references). */
  private static parreg.persistence.KryoCodec codec(ActorContext<?> ctx) {
    return parreg.persistence.KryoCodec.fromConfig(ctx.getSystem().settings().config());
  }

  @Override
  public org.apache.pekko.persistence.typed.EventAdapter<JournalEvent, ?> eventAdapter() {
    return chain.events;
  }

  @Override
  public org.apache.pekko.persistence.typed.SnapshotAdapter<TrainingState> snapshotAdapter() {
    return chain.snapshots;
  }

  @Override
  public TrainingState emptyState() {
    return TrainingState.empty();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    // A write of several events snapshots after it when any of them reaches a multiple of N.
    return RetentionCriteria.snapshotEvery(snapshotEvery, 2);
  }

  @Override
  public SignalHandler<TrainingState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(
            RecoveryCompleted.instance(),
            state ->
                owner.tell(
                    new Recovered(
                        state,
                        lastSequenceNumber(ctx),
                        chain.head(),
                        lastReplayed,
                        lastReplayedFrom)))
        // After a failed write the journal child restarts and recovers; on H2 a full disk closes
        // the
        // database, so that recovery fails, and its cause chain still holds "No space left on
        // device".
        .onSignal(
            RecoveryFailed.class,
            (state, f) ->
                owner.tell(
                    new Failed(
                        String.valueOf(f.getFailure().getMessage()),
                        parreg.persistence.JournalErrors.isDiskFull(f.getFailure()))))
        // A failed write restarts this actor, which recovers and is sent the write again: right for
        // a passing failure (a lost connection), endless for a full disk. H2 closes its database on
        // a full disk (recovery then fails, above); PostgreSQL stays readable and refuses each
        // write with SQLSTATE 53100, so a full disk is told here, as the write fails.
        .onSignal(
            JournalPersistFailed.class,
            (state, f) -> {
              if (parreg.persistence.JournalErrors.isDiskFull(f.getFailure())) {
                owner.tell(new Failed(String.valueOf(f.getFailure().getMessage()), true));
              }
            })
        .onSignal(
            SnapshotCompleted.class,
            (state, s) -> owner.tell(new Snapshotted(s.metadata().sequenceNr())))
        .build();
  }

  @Override
  public CommandHandler<Command, JournalEvent, TrainingState> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(
            Write.class,
            (state, w) -> {
              writeStartNanos = System.nanoTime();
              chain.sealedAlready(w.sealed());
              return Effect()
                  .persist(Arrays.asList(w.events()))
                  .thenRun(
                      s -> {
                        metrics.journalWritten(
                            w.events().length, System.nanoTime() - writeStartNanos);
                        owner.tell(new Written(s.committed(), lastSequenceNumber(ctx)));
                      });
            })
        .build();
  }

  @Override
  public EventHandler<TrainingState, JournalEvent> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(RunStarted.class, TrainingState::apply)
        .onEvent(
            StepCommitted.class,
            (state, e) -> {
              lastReplayed = e;
              lastReplayedFrom = state.parameters();
              return state.apply(e);
            })
        .build();
  }
}
