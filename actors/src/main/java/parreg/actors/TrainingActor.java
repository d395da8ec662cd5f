package parreg.actors;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import parreg.device.Batching;
import parreg.device.Bits;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.UpdateRule;
import parreg.persistence.KryoSerializable;

/**
 * Drives training and owns its journal: the events declared here ({@link RunStarted}, then one
 * {@link StepCommitted} per step) are written by its event-sourced child {@link StepJournal}, and
 * that journal, with its snapshots, is the checkpoint.
 *
 * <p>One step k: ask the GPU actor for our contribution at the parameters after step k-1, publish
 * it through the peer actor, receive the full set of step k, apply {@link UpdateRule}: step k is
 * <em>committed</em> (in memory, agreed by every participant) and step k+1 starts at once. Its
 * {@link StepCommitted} is written behind the step, many in one journal write (group commit): a
 * write starts, when none is in flight, once {@code group-steps} steps wait or the oldest has
 * waited {@code group-ms}, or at once when training cannot go on without it (lag bound, target
 * reached). A write costs about as much CPU for one event as for a hundred, so grouping is what
 * makes a step cheap; and whatever waits is written in the next write. The lag is bounded: a step
 * starts only while at most {@code max-lag-steps} committed steps are not yet durable and the
 * oldest of them was committed less than {@code max-lag-ms} ago, so a slow journal slows training
 * instead of letting the lag grow; {@code max-lag-steps} 0 or 1 makes every step durable before the
 * next starts.
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

  /** From the peer actor: every participant's partition is known. */
  public record RosterComplete(PartitionInfo[] roster) implements Command {}

  /**
   * From the peer actor: the full set of contributions to {@code step}; {@code recordedOwn} is this
   * node's contribution as a peer recorded it (when catching up), checked against ours.
   */
  public record StepReady(long step, LocalSums[] contributions, LocalSums recordedOwn)
      implements Command {}

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
      double etaSeconds) {}

  // ---- from the journal child (StepJournal) ----

  /** Recovery finished (again, after a restart of the journal child): the durable state. */
  record JournalRecovered(TrainingState state, long sequenceNr) implements Command {}

  /** The last write is durable; {@code durableStep} is the journal's last step now. */
  record JournalWritten(long durableStep, long sequenceNr) implements Command {}

  record JournalSnapshotted(long sequenceNr) implements Command {}

  /**
   * The journal failed; {@code diskFull} when its cause was a full disk (see {@link
   * parreg.persistence.JournalErrors}).
   */
  record JournalFailed(String reason, boolean diskFull) implements Command {}

  private record Computed(long step, LocalSums sums) implements Command {}

  private record EvidenceDone(String error) implements Command {}

  /**
   * The diverged run's last finite step is durable and its peers had time to fetch our
   * contribution.
   */
  private enum DivergedEnd implements Command {
    INSTANCE
  }

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

  public interface Event extends KryoSerializable {}

  /** The run started with this contract and roster (the first event of every journal). */
  public record RunStarted(parreg.device.RunContract contract, PartitionInfo[] roster)
      implements Event, parreg.persistence.JournalRuns.Opening {}

  /** Step {@code step} committed with these contributions (by participant id) and this outcome. */
  public record StepCommitted(
      long step, LocalSums[] contributions, double[] parameters, double loss) implements Event {}

  /** An event committed in memory and not yet acknowledged by the journal. */
  private record Pending(Event event, long committedAtNanos) {}

  /**
   * How often the rate is measured when {@code parreg.progress-interval} = 0 (no progress line).
   */
  private static final Duration DEFAULT_RATE_INTERVAL = Duration.ofSeconds(5);

  private final NodeSettings settings;
  private final NodeLifecycle lifecycle;
  private final TimerScheduler<Command> timers;
  private final ActorRef<GpuActor.Command> gpu;
  private final ActorRef<PeerActor.Command> peer;
  private final ActorRef<StepJournal.Command> journal;
  private final ActorRef<GpuActor.Computed> computedAdapter;
  private final Batching batching;
  private final long maxLagNanos;

  /** Committed state: agreed by every participant, durable up to {@link #durable}. */
  private TrainingState state;

  private long durable;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /** How many of {@link #pending}'s first events the write in flight holds (0: none in flight). */
  private int writing;

  private long journalPosition;
  private long journalWrites;
  private long lastSnapshot;
  private final long recoveredStep;

  private boolean rosterComplete;
  private boolean stopped;
  private boolean flushing;
  private final java.util.List<ActorRef<Long>> flushWaiters = new java.util.ArrayList<>();
  private long inFlight = -1;
  private LocalSums ownSums;
  private long ownStep = -1;

  /**
   * The step whose own contribution was last asked of the GPU actor (see {@link #computeAhead}).
   */
  private long computeSent = -1;

  private long lastStepStartNanos;
  private boolean doneReported;

  /** Why training stopped at a non-finite step (null: it did not). */
  private String diverged;

  /** When this incarnation started (its journal replayed), and its rate over the last interval. */
  private final long startedAtMillis = System.currentTimeMillis();

  private final ProgressMeter progress;
  private final NodeMetrics metrics;
  private WatchCommits watcher;

  public static Behavior<Command> create(
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer) {
    return Behaviors.withStash(
        10_000,
        stash ->
            Behaviors.setup(
                ctx ->
                    Behaviors.withTimers(
                        timers -> {
                          ActorRef<StepJournal.Command> journal =
                              ctx.spawn(
                                  StepJournal.create(
                                      settings.persistenceId(),
                                      settings.snapshotEvery(),
                                      ctx.getSelf()),
                                  "journal");
                          return recovering(
                              ctx, timers, stash, settings, lifecycle, gpu, peer, journal);
                        })));
  }

  /** Until the journal is replayed, everything else waits. */
  private static Behavior<Command> recovering(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      StashBuffer<Command> stash,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<StepJournal.Command> journal) {
    return Behaviors.receive(Command.class)
        .onMessage(
            JournalFailed.class,
            f -> {
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
            JournalRecovered.class,
            r -> {
              String refusal = refusal(settings, r.state());
              if (refusal != null) {
                ctx.getLog().error(refusal);
                lifecycle.refuse(refusal);
                return Behaviors.stopped();
              }
              TrainingActor actor =
                  new TrainingActor(ctx, timers, settings, lifecycle, gpu, peer, journal, r);
              return stash.unstashAll(actor);
            })
        .onAnyMessage(
            m -> {
              stash.stash(m);
              return Behaviors.same();
            })
        .build();
  }

  /** Why the recovered journal does not belong to this node's contract and data, or null. */
  private static String refusal(NodeSettings settings, TrainingState state) {
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

  private TrainingActor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<StepJournal.Command> journal,
      JournalRecovered recovered) {
    super(ctx);
    this.timers = timers;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.gpu = gpu;
    this.peer = peer;
    this.journal = journal;
    this.computedAdapter =
        ctx.messageAdapter(GpuActor.Computed.class, c -> new Computed(c.step(), c.sums()));
    this.batching = new Batching(settings.partition().samples(), settings.contract().batchSize());
    this.maxLagNanos = settings.maxLag().toNanos();
    this.state = recovered.state();
    this.durable = state.committed();
    this.recoveredStep = state.committed();
    this.journalPosition = recovered.sequenceNr();
    this.progress = new ProgressMeter(state.committed(), System.nanoTime());
    this.metrics = NodeMetrics.get(ctx.getSystem());
    metrics.recovered(state.committed(), settings.targetSteps(), state.loss());
    // The rate (status: stepsPerSecond, etaSeconds) is measured even when the line is off.
    Duration every =
        settings.progressInterval().isZero() ? DEFAULT_RATE_INTERVAL : settings.progressInterval();
    timers.startTimerAtFixedRate(Progress.INSTANCE, Progress.INSTANCE, every);
    StartupTrace.mark("recovery done (step " + state.committed() + ")");
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
    peer.tell(new PeerActor.Attach(ctx.getSelf(), state.roster(), state.committed()));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(RosterComplete.class, this::onRosterComplete)
        .onMessage(Next.class, n -> startNextStep())
        .onMessage(
            GroupDue.class,
            f -> {
              write();
              return this;
            })
        .onMessage(Computed.class, this::onComputed)
        .onMessage(StepReady.class, this::onStepReady)
        .onMessage(JournalWritten.class, this::onJournalWritten)
        .onMessage(JournalRecovered.class, this::onJournalRestarted)
        .onMessage(
            JournalSnapshotted.class,
            s -> {
              lastSnapshot = s.sequenceNr();
              return this;
            })
        .onMessage(
            JournalFailed.class,
            f -> {
              lifecycle.fail(
                  f.diskFull()
                      ? diskFull()
                      : "journal " + settings.journalDescription() + " failed: " + f.reason());
              return this;
            })
        .onMessage(EvidenceDone.class, this::onEvidenceDone)
        .onMessage(Progress.class, p -> onProgress())
        .onMessage(
            DivergedEnd.class,
            d -> {
              lifecycle.diverge(
                  diverged + "; the journal ends at step " + durable + ", the last finite one");
              return this;
            })
        .onMessage(GetState.class, this::onGetState)
        .onMessage(Flush.class, this::onFlush)
        .onMessage(
            WatchCommits.class,
            w -> {
              watcher = w;
              if (state.started() && state.committed() > 0) {
                w.replyTo().tell(new CommittedParameters(state.committed(), state.parameters()));
              }
              return this;
            })
        .build();
  }

  private Behavior<Command> onRosterComplete(RosterComplete r) {
    if (stopped) {
      return this;
    }
    rosterComplete = true;
    StartupTrace.once("roster complete");
    if (!state.started()) {
      ctx().getLog().info("roster complete: {}", Arrays.toString(r.roster()));
      RunStarted started = new RunStarted(settings.contract(), r.roster());
      state = state.apply(started);
      commit(started);
    }
    return startNextStep();
  }

  private ActorContext<Command> ctx() {
    return getContext();
  }

  /**
   * Starts step committed+1 unless one is in flight, the target is reached, the journal lags too
   * far behind (it starts again when the journal acknowledges), or pacing says wait.
   */
  private Behavior<Command> startNextStep() {
    if (stopped || flushing || !rosterComplete || !state.started() || inFlight >= 0) {
      return this;
    }
    if (state.committed() >= settings.targetSteps()) {
      write(); // nothing more to group with
      maybeDone();
      return this;
    }
    if (journalLagsTooFar()) {
      write(); // the journal holds training up: do not let it wait for a fuller group
      computeAhead();
      return this;
    }
    long interval = settings.stepInterval().toNanos();
    if (interval > 0) {
      long wait = lastStepStartNanos + interval - System.nanoTime();
      if (wait > 0) {
        timers.startSingleTimer(Next.INSTANCE, Duration.ofNanos(wait));
        return this;
      }
    }
    lastStepStartNanos = System.nanoTime();
    long step = state.committed() + 1;
    inFlight = step;
    if (ownStep == step && ownSums != null) {
      peer.tell(new PeerActor.Publish(step, ownSums));
      return this;
    }
    if (computeSent != step) {
      compute(step);
    } // else computed ahead and not back yet: onComputed publishes it
    return this;
  }

  /**
   * While the journal holds the next step up (with {@code --sync-commit}, on every step), its own
   * contribution is computed already: it depends only on the committed parameters, and nothing
   * derived from them leaves the node before the journal lets the step start ({@link
   * #startNextStep} publishes it then). The device works while the journal writes, instead of after
   * it.
   */
  private void computeAhead() {
    long step = state.committed() + 1;
    if (computeSent != step && ownStep != step) {
      compute(step);
    }
  }

  private void compute(long step) {
    computeSent = step;
    int batch = batching.batchOfStep(step);
    StepTrace.stamp(0, step);
    gpu.tell(
        new GpuActor.Compute(
            step,
            state.parameters(),
            batching.start(batch),
            batching.length(batch),
            computedAdapter));
  }

  /** The back-pressure rule: see the class comment. */
  private boolean journalLagsTooFar() {
    int steps = pendingSteps();
    if (steps == 0) {
      return false;
    }
    if (steps >= Math.max(1, settings.maxLagSteps())) {
      return true;
    }
    return System.nanoTime() - pending.peekFirst().committedAtNanos() >= maxLagNanos;
  }

  private int pendingSteps() {
    int n = pending.size();
    return n > 0 && pending.peekFirst().event() instanceof RunStarted ? n - 1 : n;
  }

  private Behavior<Command> onComputed(Computed c) {
    if (c.step() != state.committed() + 1) {
      return this;
    }
    StepTrace.stamp(3, c.step());
    ownStep = c.step();
    ownSums = c.sums();
    if (c.step() == inFlight) {
      peer.tell(new PeerActor.Publish(c.step(), c.sums()));
    } // else computed ahead: published once the step starts
    return this;
  }

  private Behavior<Command> onStepReady(StepReady r) {
    long step = state.committed() + 1;
    if (stopped || r.step() != step || inFlight != step || ownStep != step || ownSums == null) {
      return this;
    }
    LocalSums mine = r.contributions()[settings.participant()];
    if (!ownSums.sameBits(mine)
        || (r.recordedOwn() != null && !ownSums.sameBits(r.recordedOwn()))) {
      String msg =
          "step "
              + step
              + ": this node's recomputed contribution "
              + ownSums
              + " differs from the one its peers recorded "
              + (r.recordedOwn() != null ? r.recordedOwn() : mine)
              + "; refusing to continue (different data, code or device arithmetic?)";
      ctx().getLog().error(msg);
      stopped = true;
      lifecycle.fail(msg);
      return this;
    }
    StepTrace.stamp(7, step);
    try {
      state =
          state.next(
              step,
              r.contributions()); // the update, computed once (the journal child re-checks it)
    } catch (TrainingState.NonFinite e) {
      return onDiverged(e);
    }
    StepCommitted event =
        new StepCommitted(step, r.contributions(), state.parameters(), state.loss());
    commit(event);
    metrics.stepCommitted(step, state.loss(), System.nanoTime() - lastStepStartNanos);
    if (watcher != null && (step % watcher.every() == 0 || step == settings.targetSteps())) {
      watcher.replyTo().tell(new CommittedParameters(step, state.parameters()));
    }
    if (step == recoveredStep + 1) {
      // Operators (and scripts/bench-restart.sh) read the restart latency from this line.
      ctx().getLog().info("first step since start committed: {}", step);
      StartupTrace.mark("first step since start committed (" + step + ")");
    }
    StepTrace.stamp(8, step);
    inFlight = -1;
    ownSums = null;
    ownStep = -1;
    peer.tell(new PeerActor.Committed(step, r.contributions()));
    return startNextStep();
  }

  /**
   * A step whose update is not finite is not committed. Every participant computes the same update
   * from the same set, so each stops here at the same step on its own; this node writes what it
   * committed, then keeps its peer actor serving for a moment (a peer may still be asking for our
   * contribution to this step, and needs it to reach the same verdict) before the node ends.
   */
  private Behavior<Command> onDiverged(TrainingState.NonFinite e) {
    ctx().getLog().error(e.getMessage());
    stopped = true;
    diverged = e.getMessage();
    write();
    endIfDiverged();
    return this;
  }

  private void endIfDiverged() {
    if (diverged != null && pending.isEmpty() && !timers.isTimerActive(DivergedEnd.INSTANCE)) {
      timers.startSingleTimer(DivergedEnd.INSTANCE, settings.retryInterval().multipliedBy(5));
    }
  }

  /**
   * The one line of a journal write that failed for want of space: the first step it could not
   * write.
   */
  private String diskFull() {
    return "journal disk full at step "
        + (durable + 1)
        + ": "
        + settings.journalDescription()
        + " (no space left on device); the journal ends at step "
        + durable
        + ": free space and restart the node to resume";
  }

  /**
   * Queues a committed event for the journal; writes when the group is full (see the class
   * comment).
   */
  private void commit(Event event) {
    pending.addLast(new Pending(event, System.nanoTime()));
    if (pending.size() == 1 && settings.groupSteps() > 1) {
      timers.startSingleTimer(GroupDue.INSTANCE, GroupDue.INSTANCE, settings.groupDelay());
    }
    if (pending.size() - writing >= settings.groupSteps() || !(event instanceof StepCommitted)) {
      write();
    }
  }

  /** Hands every event not yet written to the journal, unless a write is in flight. */
  private void write() {
    if (writing > 0 || pending.isEmpty()) {
      return;
    }
    timers.cancel(GroupDue.INSTANCE);
    Event[] events = new Event[pending.size()];
    int i = 0;
    for (Pending p : pending) {
      events[i++] = p.event();
    }
    writing = events.length;
    journalWrites++;
    journal.tell(new StepJournal.Write(events));
  }

  private Behavior<Command> onJournalWritten(JournalWritten w) {
    for (int i = 0; i < writing; i++) {
      pending.removeFirst();
    }
    writing = 0;
    durable = w.durableStep();
    journalPosition = w.sequenceNr();
    metrics.durable(durable);
    peer.tell(new PeerActor.Durable(durable));
    if (diverged != null) {
      write();
      answerFlushes();
      endIfDiverged();
      return this;
    }
    if (flushing) {
      write();
      answerFlushes();
    } else if (!pending.isEmpty()) {
      // What was committed during the write: write it now if the group is full or it has waited
      // long enough, else when it is (startNextStep below writes at once if training must wait).
      long waited = System.nanoTime() - pending.peekFirst().committedAtNanos();
      if (pending.size() >= settings.groupSteps() || waited >= settings.groupDelay().toNanos()) {
        write();
      } else {
        timers.startSingleTimer(
            GroupDue.INSTANCE, GroupDue.INSTANCE, settings.groupDelay().minusNanos(waited));
      }
    }
    return startNextStep();
  }

  /**
   * The journal child was restarted after a failed write and replayed what is durable: drop what it
   * already holds, write the rest again. (A write whose acknowledgement was lost may be durable.)
   */
  private Behavior<Command> onJournalRestarted(JournalRecovered r) {
    long back = r.state().committed();
    ctx()
        .getLog()
        .warn(
            "journal restarted after a failure; durable at step {}, {} committed steps to write again",
            back,
            state.committed() - back);
    pending.removeIf(
        p -> p.event() instanceof StepCommitted s ? s.step() <= back : r.state().started());
    writing = 0;
    durable = back;
    journalPosition = r.sequenceNr();
    metrics.durable(durable);
    write();
    return this;
  }

  private Behavior<Command> onFlush(Flush f) {
    flushing = true;
    flushWaiters.add(f.replyTo());
    write();
    answerFlushes();
    return this;
  }

  private void answerFlushes() {
    if (pending.isEmpty()) {
      flushWaiters.forEach(w -> w.tell(durable));
      flushWaiters.clear();
    }
  }

  /** The run is done when the target step is durable here (then the evidence is written). */
  private void maybeDone() {
    if (doneReported || durable < settings.targetSteps()) {
      return;
    }
    doneReported = true;
    StepTrace.write(settings.participant());
    ctx()
        .getLog()
        .info(
            "target step {} durable: w={} loss={}",
            state.committed(),
            Bits.hexList(state.parameters()),
            state.loss());
    if (settings.evidence() != null) {
      ActorRef<GpuActor.EvidenceWritten> adapter =
          ctx().messageAdapter(GpuActor.EvidenceWritten.class, e -> new EvidenceDone(e.error()));
      gpu.tell(
          new GpuActor.WriteEvidence(
              settings.evidence(), settings.contract().digest(), settings.participant(), adapter));
    } else {
      lifecycle.markTrainingDone();
    }
  }

  private Behavior<Command> onEvidenceDone(EvidenceDone e) {
    if (e.error() != null) {
      ctx().getLog().error(e.error());
      lifecycle.fail(e.error());
    } else {
      ctx().getLog().info("device evidence written to {}", settings.evidence());
      lifecycle.markTrainingDone();
    }
    return this;
  }

  /** Ends a rate interval; logs the progress line while training, when enabled. */
  private Behavior<Command> onProgress() {
    progress.sample(state.committed(), System.nanoTime());
    Phase phase = phase();
    if (!settings.progressInterval().isZero()
        && (phase == Phase.TRAINING || phase == Phase.WAITING)) {
      ctx()
          .getLog()
          .info(
              progress.line(
                  state.committed(),
                  settings.targetSteps(),
                  state.loss(),
                  durable,
                  phase == Phase.WAITING));
    }
    return this;
  }

  private Phase phase() {
    if (!state.started() || !rosterComplete) {
      return Phase.STARTING;
    } else if (state.committed() >= settings.targetSteps() && durable >= settings.targetSteps()) {
      return Phase.DONE;
    } else if (inFlight >= 0
        && System.nanoTime() - lastStepStartNanos > settings.waitingAfter().toNanos()) {
      return Phase.WAITING;
    }
    return Phase.TRAINING;
  }

  private Behavior<Command> onGetState(GetState g) {
    Phase phase = phase();
    double[] params = state.started() ? state.parameters() : settings.contract().initialWeights();
    g.replyTo()
        .tell(
            new View(
                settings.participant(),
                state.committed(),
                durable,
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
                journalPosition,
                lastSnapshot,
                pendingSteps(),
                journalWrites,
                settings.journalDescription(),
                startedAtMillis,
                progress.stepsPerSecond(),
                progress.etaSeconds(state.committed(), settings.targetSteps())));
    return this;
  }

  /** Applies a journaled event with the same checks as recovery (for readers outside the actor). */
  public static TrainingState replay(TrainingState state, RunStarted e) {
    return state.apply(e);
  }

  public static TrainingState replay(TrainingState state, StepCommitted e) {
    return state.apply(e);
  }
}
