package parreg.training;

import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import parreg.device.Bits;
import parreg.device.PartitionInfo;
import parreg.protocol.TrainingState;
import parreg.settings.NodeLifecycle;
import parreg.settings.NodeSettings;
import parreg.training.journal.StepJournal;

/**
 * The training actor's start: it spawns the journal child ({@link StepJournal}); until that has
 * replayed the journal, every other message waits; then the recovered state is checked against this
 * node's contract and data, and training begins (logging what was recovered), or the node is
 * refused (exit 2) or fails (the journal could not be replayed).
 */
final class TrainingRecovery {
  private TrainingRecovery() {}

  /** Makes the training actor once its journal is recovered and checked. */
  interface Training {
    TrainingActor start(
        ActorContext<TrainingActor.Command> ctx,
        TimerScheduler<TrainingActor.Command> timers,
        ActorRef<StepJournal.Command> journal,
        StepJournal.Recovered recovered);
  }

  /** Spawns the journal child and waits for its replay ({@link #awaitJournal}). */
  static Behavior<TrainingActor.Command> start(
      NodeSettings settings, NodeLifecycle lifecycle, Training training) {
    return Behaviors.withStash(
        10_000,
        stash ->
            Behaviors.setup(
                ctx ->
                    Behaviors.withTimers(
                        timers -> {
                          ActorRef<StepJournal.Reply> replies =
                              ctx.messageAdapter(
                                  StepJournal.Reply.class, TrainingActor.FromJournal::new);
                          ActorRef<StepJournal.Command> journal =
                              ctx.spawn(
                                  StepJournal.create(
                                      settings.persistenceId(), snapshotEvery(settings), replies),
                                  "journal");
                          return awaitJournal(
                              ctx,
                              stash,
                              settings,
                              lifecycle,
                              r -> training.start(ctx, timers, journal, r));
                        })));
  }

  /** Stashes until {@link StepJournal.Recovered}, then becomes {@code training}. */
  private static Behavior<TrainingActor.Command> awaitJournal(
      ActorContext<TrainingActor.Command> ctx,
      StashBuffer<TrainingActor.Command> stash,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      Function<StepJournal.Recovered, TrainingActor> training) {
    return Behaviors.receive(TrainingActor.Command.class)
        .onMessage(
            TrainingActor.FromJournal.class,
            m -> m.reply() instanceof StepJournal.Failed,
            m -> {
              StepJournal.Failed f = (StepJournal.Failed) m.reply();
              lifecycle.fail(
                  f.diskFull()
                      ? "journal disk full at start: "
                          + settings.journalDescription()
                          + " (no space left on device); free space and restart"
                      : "journal "
                          + settings.journalDescription()
                          + " could not be replayed: "
                          + f.reason());
              return Behaviors.stopped();
            })
        .onMessage(
            TrainingActor.FromJournal.class,
            m -> m.reply() instanceof StepJournal.Recovered,
            m -> {
              StepJournal.Recovered r = (StepJournal.Recovered) m.reply();
              String refusal = refusal(settings, r.state());
              if (refusal != null) {
                ctx.getLog().error(refusal);
                lifecycle.refuse(refusal);
                return Behaviors.stopped();
              }
              TrainingState state = r.state();
              if (state.started()) {
                ctx.getLog()
                    .info(
                        "recovered {} at step {} (w={})",
                        settings.persistenceId(),
                        state.committed(),
                        Bits.hexList(state.parameters()));
              } else {
                ctx.getLog().info("new journal for {}", settings.persistenceId());
              }
              return stash.unstashAll(training.apply(r));
            })
        .onAnyMessage(
            m -> {
              stash.stash(m);
              return Behaviors.same();
            })
        .build();
  }

  /** Why the recovered journal does not belong to this node's contract and data, or null. */
  static String refusal(NodeSettings settings, TrainingState state) {
    if (!state.started()) {
      return null;
    }
    var diff = state.contract().firstDifference(settings.contract());
    if (diff.isPresent()) {
      return "the journal "
          + settings.journalDescription()
          + " belongs to another contract: "
          + diff.get()
          + " (journal value first, given value second)";
    }
    PartitionInfo recorded = state.roster()[settings.participant()];
    PartitionInfo given = settings.partition().info(settings.participant());
    if (!recorded.equals(given)) {
      return "participant "
          + settings.participant()
          + "'s data differs from the journal's roster: recorded "
          + recorded.describe()
          + ", given "
          + given.describe();
    }
    return null;
  }

  /**
   * Snapshots every {@code snapshot-every} events; never for a standardized descent with a
   * tolerance, whose stop is decided from its last committed set: recovery replays every step
   * (bounded by {@code --steps}), so the last set is always at hand.
   */
  static int snapshotEvery(NodeSettings settings) {
    return settings.contract().solverSpec().tolValue() > 0
        ? Integer.MAX_VALUE
        : settings.snapshotEvery();
  }
}
