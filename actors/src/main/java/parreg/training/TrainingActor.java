package parreg.training;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import parreg.device.Batching;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.UpdateRule;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.metrics.NodeMetrics;
import parreg.metrics.StartupTrace;
import parreg.metrics.StepTrace;
import parreg.protocol.JournalEvent;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;
import parreg.settings.NodeLifecycle;
import parreg.settings.NodeSettings;
import parreg.training.journal.StepJournal;
import parreg.training.journal.StepLogWriter;
import parreg.training.journal.WriteBehind;

/**
 * Drives training and owns its journal: the events declared here ({@link RunStarted}, then one
 * {@link StepCommitted} per step) are written by its event-sourced child {@link StepJournal}, and
 * that journal, with its snapshots, is the checkpoint.
 *
 * <p>One step k: ask the GPU actor for our contribution at the parameters after step k-1 ({@link
 * OwnContribution}), publish it through the peer actor, receive the full set of step k, apply
 * {@link UpdateRule}: step k is <em>committed</em> (in memory, agreed by every participant) and
 * step k+1 starts at once. Its {@link StepCommitted} is written behind the step, many in one
 * journal write, and the lag is bounded ({@link WriteBehind}). The actor handles the messages and
 * sequences the step; its helpers hold the other roles: {@link TrainingRecovery} (the start),
 * {@link RunEnd} (done, diverged), {@link TrainingStatus} (phase, view, progress line).
 *
 * <p>Why this is safe: every contribution is a deterministic function of the committed parameters
 * and the partition, so a step that was committed but not durable when the node died is simply
 * recomputed to the same bits, or served by a peer (which checks it against this node's
 * recomputation). Nothing outside the node treats a step as saved before it is durable: status
 * reports {@code durableStep} apart from {@code committedStep}, the run is done (evidence, {@code
 * --exit-when-done}) only when the target is durable, and export/predict read the journal.
 */
public final class TrainingActor extends AbstractBehavior<TrainingActor.Command> {

  public interface Command {}

  /** What the peer actor delivers, through the adapter made when this actor attaches to it. */
  public record FromPeer(PeerActor.Delivery delivery) implements Command {}

  public record GetState(ActorRef<View> replyTo) implements Command {}

  /**
   * A graceful stop (SIGTERM): start no more steps, write everything committed, and reply with the
   * durable step once nothing waits for the journal. A restart then resumes exactly there.
   */
  public record Flush(ActorRef<Long> replyTo) implements Command {}

  /**
   * Tell {@code replyTo} the parameters of every committed step that is a multiple of {@code
   * every}, of the target step, and at once of the step already committed: what a hold-out
   * evaluation reads ({@link ValidationActor}). One watcher; a second replaces the first.
   */
  public record WatchCommits(long every, ActorRef<CommittedParameters> replyTo)
      implements Command {}

  /** A committed step's parameters (the state's own array: read-only). */
  public record CommittedParameters(long step, double[] parameters) {}

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
      long durableStep,
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
      int journalLag,
      long journalWrites,
      String journal,
      long startedAtMillis,
      double stepsPerSecond,
      double etaSeconds,
      java.util.Map<String, Object> summary) {}

  /** A reply of the journal child, through the adapter {@link TrainingRecovery} made for it. */
  record FromJournal(StepJournal.Reply reply) implements Command {}

  private record Computed(long step, LocalSums sums) implements Command {}

  record EvidenceDone(String error) implements Command {}

  /**
   * The diverged run's last finite step is durable and its peers had time to fetch our
   * contribution.
   */
  enum DivergedEnd implements Command {
    INSTANCE
  }

  /** Waits of pacing shorter than this are not left to Pekko's 10 ms scheduler ticks. */
  private static final long FINE_PACING_NANOS = 50_000_000L;

  private enum Next implements Command {
    INSTANCE
  }

  /** Time to measure the rate (and log the progress line, when enabled). */
  private enum Progress implements Command {
    INSTANCE
  }

  /** The oldest event waiting for the journal has waited {@code group-ms}: write now. */
  private enum GroupDue implements Command {
    INSTANCE
  }

  private final NodeSettings settings;
  private final NodeLifecycle lifecycle;
  private final TimerScheduler<Command> timers;
  private final ActorRef<PeerActor.Command> peer;
  private final NodeMetrics metrics;

  /** Committed state: agreed by every participant, durable up to {@link WriteBehind#durable}. */
  private TrainingState state;

  private final long recoveredStep;
  private final WriteBehind journal;
  private final OwnContribution own;
  private final RunEnd end;
  private final TrainingStatus status;

  private boolean rosterComplete;
  private boolean stopped;
  private long inFlight = -1;
  private long lastStepStartNanos;
  private WatchCommits watcher;

  public static Behavior<Command> create(
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer) {
    return TrainingRecovery.start(
        settings,
        lifecycle,
        (ctx, timers, journal, recovered) ->
            new TrainingActor(ctx, timers, settings, lifecycle, gpu, peer, journal, recovered));
  }

  private TrainingActor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<StepJournal.Command> journal,
      StepJournal.Recovered recovered) {
    super(ctx);
    this.timers = timers;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.peer = peer;
    this.state = recovered.state();
    this.recoveredStep = state.committed();
    Batching batching =
        new Batching(settings.partition().samples(), settings.contract().batchSize());
    this.journal =
        new WriteBehind(
            settings,
            state.committed(),
            recovered.sequenceNr(),
            WriteBehind.Journal.of(journal, timers, GroupDue.INSTANCE, this::stepLogFailed),
            System::nanoTime,
            stepLog(ctx, settings, recovered, lifecycle));
    // A step log that could not be opened has failed the node: it commits nothing meanwhile.
    this.stopped = settings.stepLog() != null && this.journal.stepLogBytes() < 0;
    this.own =
        new OwnContribution(
            gpu,
            peer,
            ctx.messageAdapter(GpuActor.Computed.class, c -> new Computed(c.step(), c.sums())),
            batching,
            settings.participant(),
            settings.contract().solverSpec().exact());
    if (settings.contract().solverSpec().standardized()) {
      own.withMoments(
          () -> parreg.device.StandardizedDescent.moments(settings.partition().rows().join()));
    }
    this.end = new RunEnd(ctx, timers, settings, lifecycle, gpu, this.journal);
    this.status =
        new TrainingStatus(settings, batching, this.journal, recoveredStep, System.nanoTime());
    if (recovered.lastReplayed() != null) {
      status.committed(recovered.lastReplayed().step(), recovered.lastReplayed().contributions());
      if (recovered.lastReplayed().step() == state.committed()) {
        convergedCheck(
            state.committed(),
            recovered.lastReplayedFrom(),
            recovered.lastReplayed().contributions());
      }
    }
    this.metrics = NodeMetrics.get(ctx.getSystem());
    metrics.recovered(state.committed(), settings.targetSteps(), state.loss());
    // The rate (status: stepsPerSecond, etaSeconds) is measured even when the line is off.
    timers.startTimerAtFixedRate(Progress.INSTANCE, Progress.INSTANCE, status.rateInterval());
    StartupTrace.mark("recovery done (step " + state.committed() + ")");
    peer.tell(
        new PeerActor.Attach(
            ctx.messageAdapter(PeerActor.Delivery.class, FromPeer::new),
            state.roster(),
            state.committed()));
  }

  /**
   * The step log of an H2 journal (acknowledging or guarding), opened after recovery (the node's
   * start moved an earlier log into the journal); null without one, or when it cannot be opened
   * (the node fails).
   */
  private static StepLogWriter stepLog(
      ActorContext<Command> ctx,
      NodeSettings settings,
      StepJournal.Recovered recovered,
      NodeLifecycle lifecycle) {
    if (settings.stepLog() == null) {
      return null;
    }
    try {
      return StepLogWriter.open(
          settings.stepLog(),
          settings.persistenceId(),
          parreg.persistence.KryoCodec.fromConfig(ctx.getSystem().settings().config()),
          recovered.chainHead(),
          recovered.sequenceNr());
    } catch (java.io.IOException
        | IllegalStateException
        | parreg.persistence.JournalReadException e) {
      lifecycle.fail(
          "journal "
              + settings.journalDescription()
              + ": cannot open the step log "
              + settings.stepLog().directory()
              + ": "
              + e.getMessage());
      return null;
    }
  }

  /**
   * Hands a committed event to the journal; false when the step log could not take it (the node
   * then fails: a full disk says so in one line).
   */
  private boolean commitToJournal(JournalEvent event) {
    try {
      journal.commit(event);
      return true;
    } catch (java.io.UncheckedIOException e) {
      stepLogFailed(e.getCause());
      return false;
    }
  }

  /** The step log could not be appended to: the node commits nothing more and fails. */
  private void stepLogFailed(java.io.IOException e) {
    stopped = true;
    failJournal(
        parreg.persistence.JournalErrors.describe(e),
        parreg.persistence.JournalErrors.isDiskFull(e));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(FromPeer.class, this::onPeer)
        .onMessage(Next.class, n -> startNextStep())
        .onMessage(GroupDue.class, this::onGroupDue)
        .onMessage(Computed.class, this::onComputed)
        .onMessage(FromJournal.class, this::onJournal)
        .onMessage(EvidenceDone.class, this::onEvidenceDone)
        .onMessage(Progress.class, p -> onProgress())
        .onMessage(DivergedEnd.class, this::onDivergedEnd)
        .onMessage(GetState.class, this::onGetState)
        .onMessage(Flush.class, this::onFlush)
        .onMessage(WatchCommits.class, this::onWatchCommits)
        .onSignal(
            org.apache.pekko.actor.typed.PostStop.class,
            s -> {
              journal.close();
              return this;
            })
        .build();
  }

  private Behavior<Command> onPeer(FromPeer m) {
    return m.delivery() instanceof PeerActor.StepReady r
        ? onStepReady(r)
        : onRosterComplete((PeerActor.RosterComplete) m.delivery());
  }

  private Behavior<Command> onRosterComplete(PeerActor.RosterComplete r) {
    if (stopped) {
      return this;
    }
    rosterComplete = true;
    StartupTrace.once("roster complete");
    if (!state.started()) {
      getContext().getLog().info("roster complete: {}", Arrays.toString(r.roster()));
      RunStarted started = new RunStarted(settings.contract(), r.roster());
      if (!commitToJournal(started)) {
        return this;
      }
      state = state.apply(started);
    }
    return startNextStep();
  }

  /**
   * Starts step committed+1 unless one is in flight, the target is reached, the journal lags too
   * far behind (it starts again when the journal acknowledges), or pacing says wait.
   */
  private Behavior<Command> startNextStep() {
    if (stopped || journal.flushing() || !rosterComplete || !state.started() || inFlight >= 0) {
      return this;
    }
    if (state.committed() >= end.target()) {
      journal.write(); // nothing more to group with
      end.maybeDone(state, status.summary());
      return this;
    }
    if (journal.lagsTooFar()) {
      journal.write(); // the journal holds training up: do not let it wait for a fuller group
      own.computeAhead(state);
      return this;
    }
    long interval = settings.stepInterval().toNanos();
    if (interval > 0) {
      long wait = lastStepStartNanos + interval - System.nanoTime();
      if (wait > 0) {
        if (wait < FINE_PACING_NANOS) {
          // Pekko's timers fire on the scheduler's 10 ms ticks, so a 1 ms pace became ~25 ms a
          // step: a short wait goes through the JDK's delayed executor, which keeps nanoseconds.
          // A Next that comes when nothing is to start is ignored (startNextStep's guards).
          ActorRef<Command> self = getContext().getSelf();
          CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS)
              .execute(() -> self.tell(Next.INSTANCE));
        } else {
          timers.startSingleTimer(Next.INSTANCE, Duration.ofNanos(wait));
        }
        return this;
      }
    }
    lastStepStartNanos = System.nanoTime();
    inFlight = state.committed() + 1;
    own.start(state);
    return this;
  }

  private Behavior<Command> onComputed(Computed c) {
    if (c.step() == state.committed() + 1) {
      own.computed(c.step(), c.sums(), c.step() == inFlight);
    }
    return this;
  }

  private Behavior<Command> onStepReady(PeerActor.StepReady r) {
    long step = state.committed() + 1;
    if (stopped || r.step() != step || inFlight != step || !own.has(step)) {
      return this;
    }
    String mismatch = own.mismatch(r);
    if (mismatch != null) {
      getContext().getLog().error(mismatch);
      stopped = true;
      lifecycle.fail(mismatch);
      return this;
    }
    StepTrace.stamp(7, step);
    TrainingState next;
    try {
      // the update, computed once (the journal child re-checks it)
      next = state.next(step, r.contributions());
    } catch (TrainingState.NonFinite e) {
      stopped = true;
      end.diverge(e);
      return this;
    } catch (parreg.solver.RankDeficientException e) {
      // Every participant solves the same statistics, so every one of them refuses alike.
      stopped = true;
      String why =
          e.describe(parreg.device.FitSummary.featureNames(settings.contract().features()));
      getContext().getLog().error(why);
      lifecycle.refuse(why);
      return this;
    }
    // With a step log the step is durable once this returns, and only then committed here.
    if (!commitToJournal(
        new StepCommitted(step, r.contributions(), next.parameters(), next.loss()))) {
      return this;
    }
    double[] before = state.parameters();
    state = next;
    status.committed(step, r.contributions());
    convergedCheck(step, before, r.contributions());
    metrics.stepCommitted(step, state.loss(), System.nanoTime() - lastStepStartNanos);
    if (watcher != null && (step % watcher.every() == 0 || step == end.target())) {
      watcher.replyTo().tell(new CommittedParameters(step, state.parameters()));
    }
    if (step == recoveredStep + 1) {
      // Operators (and scripts/bench/restart.sh) read the restart latency from this line.
      getContext().getLog().info("first step since start committed: {}", step);
      StartupTrace.mark("first step since start committed (" + step + ")");
    }
    StepTrace.stamp(8, step);
    inFlight = -1;
    own.committed();
    peer.tell(new PeerActor.Committed(step, r.contributions()));
    return startNextStep();
  }

  /**
   * A standardized descent with a tolerance ends after the first step whose committed set meets it:
   * every node decides from the same set and the parameters it was computed at ({@code before}),
   * and a restarted node from the same set replayed.
   */
  private void convergedCheck(long step, double[] before, LocalSums[] contributions) {
    if (settings.contract().solverSpec().standardized()
        && step < settings.targetSteps()
        && parreg.device.StandardizedDescent.converged(
            settings.contract(), before, contributions)) {
      end.converged(step);
      status.converged(step);
      peer.tell(new PeerActor.EndsAt(step));
      getContext()
          .getLog()
          .info("converged at step {} (tol {})", step, settings.contract().solverSpec().tol());
    }
  }

  private Behavior<Command> onGroupDue(GroupDue g) {
    journal.write();
    return this;
  }

  private Behavior<Command> onJournal(FromJournal m) {
    StepJournal.Reply r = m.reply();
    if (r instanceof StepJournal.Written w) {
      return onJournalWritten(w);
    } else if (r instanceof StepJournal.Recovered again) {
      return onJournalRestarted(again);
    } else if (r instanceof StepJournal.Snapshotted snap) {
      return onJournalSnapshotted(snap);
    }
    return onJournalFailed((StepJournal.Failed) r);
  }

  private Behavior<Command> onJournalWritten(StepJournal.Written w) {
    try {
      journal.written(w.durableStep(), w.sequenceNr());
    } catch (java.io.UncheckedIOException e) {
      stopped = true;
      failJournal(
          "cannot release the step log: " + parreg.persistence.JournalErrors.describe(e.getCause()),
          false);
      return this;
    }
    metrics.durable(journal.durable());
    peer.tell(new PeerActor.Durable(journal.durable()));
    journal.writeNext(end.diverged()); // a diverged node has stopped: what waits goes at once
    if (end.diverged()) {
      end.endIfDiverged();
      return this;
    }
    return startNextStep();
  }

  /** The journal child was restarted after a failed write and replayed what is durable. */
  private Behavior<Command> onJournalRestarted(StepJournal.Recovered r) {
    long back = r.state().committed();
    getContext()
        .getLog()
        .warn(
            "journal restarted after a failure; durable at step {}, {} committed steps to write again",
            back,
            state.committed() - back);
    journal.restarted(r.state(), r.sequenceNr());
    metrics.durable(journal.durable());
    return this;
  }

  private Behavior<Command> onJournalSnapshotted(StepJournal.Snapshotted s) {
    journal.snapshotted(s.sequenceNr());
    return this;
  }

  private Behavior<Command> onJournalFailed(StepJournal.Failed f) {
    failJournal(f.reason(), f.diskFull());
    return this;
  }

  private void failJournal(String reason, boolean diskFull) {
    lifecycle.fail(
        diskFull
            ? journal.diskFull(settings.journalDescription())
            : "journal " + settings.journalDescription() + " failed: " + reason);
  }

  private Behavior<Command> onFlush(Flush f) {
    journal.flush(durable -> f.replyTo().tell(durable));
    return this;
  }

  private Behavior<Command> onEvidenceDone(EvidenceDone e) {
    end.evidenceDone(e.error());
    return this;
  }

  private Behavior<Command> onDivergedEnd(DivergedEnd d) {
    end.divergedEnd();
    return this;
  }

  /** Ends a rate interval; logs the progress line while training, when enabled. */
  private Behavior<Command> onProgress() {
    String line = status.sample(state, phase(), System.nanoTime());
    if (line != null) {
      getContext().getLog().info(line);
    }
    return this;
  }

  private Phase phase() {
    boolean stepWaits =
        inFlight >= 0 && System.nanoTime() - lastStepStartNanos > settings.waitingAfter().toNanos();
    return TrainingStatus.phase(state, rosterComplete, journal.durable(), end.target(), stepWaits);
  }

  private Behavior<Command> onGetState(GetState g) {
    g.replyTo().tell(status.view(state, phase()));
    return this;
  }

  private Behavior<Command> onWatchCommits(WatchCommits w) {
    watcher = w;
    if (state.started() && state.committed() > 0) {
      w.replyTo().tell(new CommittedParameters(state.committed(), state.parameters()));
    }
    return this;
  }
}
