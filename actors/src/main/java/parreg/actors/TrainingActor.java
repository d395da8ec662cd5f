package parreg.actors;

import java.time.Duration;
import java.util.Arrays;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;
import parreg.device.Batching;
import parreg.device.Bits;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.UpdateRule;
import parreg.persistence.KryoSerializable;

/**
 * The event-sourced heart of a node: its journal of {@link RunStarted} and one {@link
 * StepCommitted} per step, with snapshots every N events, is the checkpoint.
 *
 * <p>One step k: ask the GPU actor for our contribution at the parameters after step k-1, publish
 * it through the peer actor, receive the full set of step k, apply {@link UpdateRule}, persist
 * {@link StepCommitted}, and only then tell anyone (peer actor) or start step k+1. A node killed
 * at any point recovers the last durable step, recomputes its own contribution to the next one
 * (same bits) and receives the others' from its peers.
 */
public final class TrainingActor extends EventSourcedBehavior<TrainingActor.Command, TrainingActor.Event, TrainingState> {

  public interface Command {}

  /** From the peer actor: every participant's partition is known. */
  public record RosterComplete(PartitionInfo[] roster) implements Command {}

  /**
   * From the peer actor: the full set of contributions to {@code step}; {@code recordedOwn} is
   * this node's contribution as a peer recorded it (when catching up), checked against ours.
   */
  public record StepReady(long step, LocalSums[] contributions, LocalSums recordedOwn) implements Command {}

  public record GetState(ActorRef<View> replyTo) implements Command {}

  /** The phase a node reports: starting, training, waiting (for a participant) or done. */
  public enum Phase {
    STARTING,
    TRAINING,
    WAITING,
    DONE;

    public String label() {
      return name().toLowerCase();
    }
  }

  public record View(
      int participant,
      long committedStep,
      long recoveredStep,
      long targetSteps,
      long epoch,
      long batches,
      int batchesPerEpoch,
      double[] parameters,
      double loss,
      Phase phase,
      parreg.device.RunContract contract,
      PartitionInfo[] roster,
      long journalPosition,
      long lastSnapshot,
      String journal) {}

  private record Computed(long step, LocalSums sums) implements Command {}

  private record EvidenceDone(String error) implements Command {}

  private enum Next implements Command {
    INSTANCE
  }

  public interface Event extends KryoSerializable {}

  /** The run started with this contract and roster (the first event of every journal). */
  public record RunStarted(parreg.device.RunContract contract, PartitionInfo[] roster)
      implements Event, parreg.persistence.JournalRuns.Opening {}

  /** Step {@code step} committed with these contributions (by participant id) and this outcome. */
  public record StepCommitted(long step, LocalSums[] contributions, double[] parameters, double loss) implements Event {}

  private final NodeSettings settings;
  private final NodeLifecycle lifecycle;
  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final ActorRef<GpuActor.Command> gpu;
  private final ActorRef<PeerActor.Command> peer;
  private final ActorRef<GpuActor.Computed> computedAdapter;
  private final Batching batching;
  private final double rate;
  private boolean rosterComplete;
  private boolean refused;
  private long inFlight = -1;
  private LocalSums ownSums;
  private long ownStep = -1;
  private long lastStepStartNanos;
  private long lastSnapshot;
  private boolean doneReported;
  private long recoveredStep;

  public static Behavior<Command> create(
      NodeSettings settings, NodeLifecycle lifecycle, ActorRef<GpuActor.Command> gpu, ActorRef<PeerActor.Command> peer) {
    return Behaviors.setup(
        ctx -> Behaviors.withTimers(timers -> new TrainingActor(ctx, timers, settings, lifecycle, gpu, peer)));
  }

  private TrainingActor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer) {
    super(
        PersistenceId.ofUniqueId(settings.persistenceId()),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
    this.ctx = ctx;
    this.timers = timers;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.gpu = gpu;
    this.peer = peer;
    this.computedAdapter = ctx.messageAdapter(GpuActor.Computed.class, c -> new Computed(c.step(), c.sums()));
    this.batching = new Batching(settings.partition().samples(), settings.contract().batchSize());
    this.rate = settings.contract().rate().value();
  }

  @Override
  public TrainingState emptyState() {
    return TrainingState.empty();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
  }

  @Override
  public SignalHandler<TrainingState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), this::onRecovered)
        .onSignal(RecoveryFailed.class, (state, f) -> {
          lifecycle.fail("journal " + settings.journalDescription() + " could not be replayed: " + f.getFailure().getMessage());
        })
        .onSignal(SnapshotCompleted.class, (state, s) -> lastSnapshot = s.metadata().sequenceNr())
        .build();
  }

  private void onRecovered(TrainingState state) {
    recoveredStep = state.committed();
    if (state.started()) {
      var diff = state.contract().firstDifference(settings.contract());
      if (diff.isPresent()) {
        refuse("the journal " + settings.journalDescription() + " belongs to another contract: " + diff.get()
            + " (journal value first, given value second)");
        return;
      }
      PartitionInfo recorded = state.roster()[settings.participant()];
      PartitionInfo given = settings.partition().info(settings.participant());
      if (!recorded.equals(given)) {
        refuse("participant " + settings.participant() + "'s data differs from the journal's roster: recorded "
            + recorded.describe() + ", given " + given.describe());
        return;
      }
      ctx.getLog().info("recovered {} at step {} (w={})", settings.persistenceId(), state.committed(), Bits.hexList(state.parameters()));
    } else {
      ctx.getLog().info("new journal for {}", settings.persistenceId());
    }
    peer.tell(new PeerActor.Attach(ctx.getSelf(), state.roster(), state.committed()));
  }

  private void refuse(String message) {
    refused = true;
    ctx.getLog().error(message);
    lifecycle.refuse(message);
  }

  @Override
  public CommandHandler<Command, Event, TrainingState> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(RosterComplete.class, this::onRosterComplete)
        .onCommand(Next.class, (state, n) -> {
          startNextStep(state);
          return Effect().none();
        })
        .onCommand(Computed.class, this::onComputed)
        .onCommand(StepReady.class, this::onStepReady)
        .onCommand(EvidenceDone.class, this::onEvidenceDone)
        .onCommand(GetState.class, this::onGetState)
        .build();
  }

  private Effect<Event, TrainingState> onRosterComplete(TrainingState state, RosterComplete r) {
    if (refused) {
      return Effect().none();
    }
    rosterComplete = true;
    if (!state.started()) {
      ctx.getLog().info("roster complete: {}", Arrays.toString(r.roster()));
      return Effect().persist(new RunStarted(settings.contract(), r.roster())).thenRun(this::startNextStep);
    }
    startNextStep(state);
    return Effect().none();
  }

  /** Starts step committed+1 unless one is in flight, the target is reached, or pacing says wait. */
  private void startNextStep(TrainingState state) {
    if (refused || !rosterComplete || !state.started() || inFlight >= 0) {
      return;
    }
    if (state.committed() >= settings.targetSteps()) {
      reportDone(state);
      return;
    }
    long interval = settings.stepInterval().toNanos();
    if (interval > 0) {
      long wait = lastStepStartNanos + interval - System.nanoTime();
      if (wait > 0) {
        timers.startSingleTimer(Next.INSTANCE, Duration.ofNanos(wait));
        return;
      }
    }
    lastStepStartNanos = System.nanoTime();
    long step = state.committed() + 1;
    inFlight = step;
    if (ownStep == step && ownSums != null) {
      peer.tell(new PeerActor.Publish(step, ownSums));
      return;
    }
    int batch = batching.batchOfStep(step);
    StepTrace.stamp(0, step);
    gpu.tell(new GpuActor.Compute(step, state.parameters(), batching.start(batch), batching.length(batch), computedAdapter));
  }

  private Effect<Event, TrainingState> onComputed(TrainingState state, Computed c) {
    if (c.step() != state.committed() + 1 || c.step() != inFlight) {
      return Effect().none();
    }
    StepTrace.stamp(3, c.step());
    ownStep = c.step();
    ownSums = c.sums();
    peer.tell(new PeerActor.Publish(c.step(), c.sums()));
    return Effect().none();
  }

  private Effect<Event, TrainingState> onStepReady(TrainingState state, StepReady r) {
    long step = state.committed() + 1;
    if (refused || r.step() != step || ownStep != step || ownSums == null) {
      return Effect().none();
    }
    LocalSums mine = r.contributions()[settings.participant()];
    if (!ownSums.sameBits(mine) || (r.recordedOwn() != null && !ownSums.sameBits(r.recordedOwn()))) {
      String msg = "step " + step + ": this node's recomputed contribution " + ownSums
          + " differs from the one its peers recorded " + (r.recordedOwn() != null ? r.recordedOwn() : mine)
          + "; refusing to continue (different data, code or device arithmetic?)";
      ctx.getLog().error(msg);
      refused = true;
      lifecycle.fail(msg);
      return Effect().none();
    }
    StepTrace.stamp(7, step);
    UpdateRule.Outcome o = UpdateRule.apply(state.parameters(), r.contributions(), rate);
    StepCommitted event = new StepCommitted(step, r.contributions(), o.parameters(), o.loss());
    return Effect()
        .persist(event)
        .thenRun(
            s -> {
              if (s.committed() == recoveredStep + 1) {
                // Operators (and scripts/bench-restart.sh) read the restart latency from this line.
                ctx.getLog().info("first step since start committed: {}", s.committed());
              }
              StepTrace.stamp(8, s.committed());
              inFlight = -1;
              ownSums = null;
              ownStep = -1;
              peer.tell(new PeerActor.Committed(s.committed(), r.contributions()));
              startNextStep(s);
            });
  }

  private void reportDone(TrainingState state) {
    if (doneReported) {
      return;
    }
    doneReported = true;
    StepTrace.write(settings.participant());
    ctx.getLog().info("target step {} committed: w={} loss={}", state.committed(), Bits.hexList(state.parameters()), state.loss());
    if (settings.evidence() != null) {
      ActorRef<GpuActor.EvidenceWritten> adapter = ctx.messageAdapter(GpuActor.EvidenceWritten.class, e -> new EvidenceDone(e.error()));
      gpu.tell(new GpuActor.WriteEvidence(settings.evidence(), settings.contract().digest(), settings.participant(), adapter));
    } else {
      lifecycle.markTrainingDone();
    }
  }

  private Effect<Event, TrainingState> onEvidenceDone(TrainingState state, EvidenceDone e) {
    if (e.error() != null) {
      ctx.getLog().error(e.error());
      lifecycle.fail(e.error());
    } else {
      ctx.getLog().info("device evidence written to {}", settings.evidence());
      lifecycle.markTrainingDone();
    }
    return Effect().none();
  }

  private Effect<Event, TrainingState> onGetState(TrainingState state, GetState g) {
    Phase phase;
    if (!state.started() || !rosterComplete) {
      phase = Phase.STARTING;
    } else if (state.committed() >= settings.targetSteps()) {
      phase = Phase.DONE;
    } else if (inFlight >= 0 && System.nanoTime() - lastStepStartNanos > settings.waitingAfter().toNanos()) {
      phase = Phase.WAITING;
    } else {
      phase = Phase.TRAINING;
    }
    double[] params = state.started() ? state.parameters() : settings.contract().initialWeights();
    g.replyTo().tell(new View(
        settings.participant(),
        state.committed(),
        recoveredStep,
        settings.targetSteps(),
        batching.epoch(state.committed()),
        state.committed(),
        batching.batchesPerEpoch(),
        params,
        state.loss(),
        phase,
        settings.contract(),
        state.roster(),
        lastSequenceNumber(ctx),
        lastSnapshot,
        settings.journalDescription()));
    return Effect().none();
  }

  /** Applies a journaled event with the same checks as recovery (for readers outside the actor). */
  public static TrainingState replay(TrainingState state, RunStarted e) {
    return state.apply(e);
  }

  public static TrainingState replay(TrainingState state, StepCommitted e) {
    return state.apply(e);
  }

  @Override
  public EventHandler<TrainingState, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(RunStarted.class, TrainingState::apply)
        .onEvent(StepCommitted.class, TrainingState::apply)
        .build();
  }
}
