package parreg.training;

import java.time.Duration;
import parreg.device.Batching;
import parreg.device.ExactStep;
import parreg.device.FitSummary;
import parreg.device.LocalSums;
import parreg.protocol.TrainingState;
import parreg.settings.NodeSettings;
import parreg.training.journal.WriteBehind;

/**
 * What the training actor reports about itself: its {@link TrainingActor.Phase}, the status {@link
 * TrainingActor.View}, and the progress line with its rate and ETA ({@link ProgressMeter}). The
 * rate is measured on a timer ({@link #rateInterval}), one message every few seconds, nothing on
 * the step path.
 *
 * <p>Not thread-safe: the training actor owns it.
 */
final class TrainingStatus {
  /**
   * How often the rate is measured when {@code parreg.progress-interval} = 0 (no progress line).
   */
  private static final Duration DEFAULT_RATE_INTERVAL = Duration.ofSeconds(5);

  /** An exact run's training summary once its step is committed ({@link FitSummary}). */
  private java.util.Map<String, Object> summary;

  /** The step the run ends at: the step limit, or the step a standardized descent converged at. */
  private long target;

  private final NodeSettings settings;
  private final Batching batching;
  private final WriteBehind journal;
  private final long recoveredStep;

  /** When this incarnation started (its journal replayed), and its rate over the last interval. */
  private final long startedAtMillis = System.currentTimeMillis();

  private final ProgressMeter progress;

  TrainingStatus(
      NodeSettings settings,
      Batching batching,
      WriteBehind journal,
      long recoveredStep,
      long nowNanos) {
    this.settings = settings;
    this.batching = batching;
    this.journal = journal;
    this.recoveredStep = recoveredStep;
    this.progress = new ProgressMeter(recoveredStep, nowNanos);
    this.target = settings.targetSteps();
  }

  /** A standardized descent converged at {@code step}: the run ends there, and says why. */
  void converged(long step) {
    target = step;
    summary = stop("converged", step);
  }

  private java.util.Map<String, Object> stop(String why, long step) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("solver", parreg.device.StandardizedDescent.VERSION);
    m.put("stop", why);
    m.put("stopStep", step);
    m.put("tol", settings.contract().solverSpec().tol());
    return m;
  }

  /**
   * How often to measure the rate: the progress interval, or 5 s when the line is off (status still
   * reports stepsPerSecond and etaSeconds).
   */
  Duration rateInterval() {
    return settings.progressInterval().isZero()
        ? DEFAULT_RATE_INTERVAL
        : settings.progressInterval();
  }

  /**
   * The phase: starting until the run started and the roster is complete; done once the target is
   * committed and durable; waiting while a step in flight has waited longer than {@code
   * waiting-after} ({@code stepWaits}); else training.
   */
  static TrainingActor.Phase phase(
      TrainingState state, boolean rosterComplete, long durable, long target, boolean stepWaits) {
    if (!state.started() || !rosterComplete) {
      return TrainingActor.Phase.STARTING;
    } else if (state.committed() >= target && durable >= target) {
      return TrainingActor.Phase.DONE;
    } else if (stepWaits) {
      return TrainingActor.Phase.WAITING;
    }
    return TrainingActor.Phase.TRAINING;
  }

  /**
   * Ends a rate interval at {@code nowNanos}; the progress line to log while training or waiting,
   * when the line is enabled, else null.
   */
  String sample(TrainingState state, TrainingActor.Phase phase, long nowNanos) {
    progress.sample(state.committed(), nowNanos);
    if (settings.progressInterval().isZero()
        || (phase != TrainingActor.Phase.TRAINING && phase != TrainingActor.Phase.WAITING)) {
      return null;
    }
    return progress.line(
        state.committed(),
        target,
        state.loss(),
        journal.durable(),
        phase == TrainingActor.Phase.WAITING);
  }

  /**
   * An exact run's step is committed with these contributions: its training summary, computed once
   * from the statistics they carry (the solve is deterministic, so a restarted node computes the
   * same), or null where the contract's solver is gradient descent.
   */
  void committed(long step, LocalSums[] contributions) {
    if (settings.contract().solverSpec().exact() && step == ExactStep.STEP) {
      summary =
          FitSummary.json(settings.contract(), FitSummary.of(settings.contract(), contributions));
    } else if (settings.contract().solverSpec().standardized()
        && step >= settings.targetSteps()
        && summary == null) {
      summary = stop("step limit", step);
    }
  }

  /** The training summary of an exact run whose step is committed, else null. */
  java.util.Map<String, Object> summary() {
    return summary;
  }

  TrainingActor.View view(TrainingState state, TrainingActor.Phase phase) {
    double[] params = state.started() ? state.parameters() : settings.contract().initialWeights();
    return new TrainingActor.View(
        settings.participant(),
        state.committed(),
        journal.durable(),
        recoveredStep,
        target,
        batching.epoch(state.committed()),
        state.committed(),
        batching.batchesPerEpoch(),
        params,
        state.loss(),
        phase,
        settings.contract(),
        state.roster(),
        journal.journalPosition(),
        journal.lastSnapshot(),
        journal.pendingSteps(),
        journal.journalWrites(),
        settings.journalDescription(),
        startedAtMillis,
        progress.stepsPerSecond(),
        progress.etaSeconds(state.committed(), target),
        summary);
  }
}
