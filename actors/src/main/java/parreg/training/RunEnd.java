package parreg.training;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import parreg.device.Bits;
import parreg.device.data.AtomicFiles;
import parreg.gpu.GpuActor;
import parreg.metrics.StepTrace;
import parreg.protocol.ModelJson;
import parreg.protocol.TrainingState;
import parreg.settings.NodeLifecycle;
import parreg.settings.NodeSettings;
import parreg.training.journal.WriteBehind;

/**
 * How the training actor's run ends: <em>done</em> once its target step is durable here (the device
 * evidence written first, when asked for), or <em>diverged</em> at a step whose update is not
 * finite (exit 3 once what was committed is durable and the peers had a moment to fetch this node's
 * contribution).
 *
 * <p>Not thread-safe: the training actor owns it.
 */
final class RunEnd {
  private final ActorContext<TrainingActor.Command> ctx;
  private final TimerScheduler<TrainingActor.Command> timers;
  private final NodeSettings settings;
  private final NodeLifecycle lifecycle;
  private final ActorRef<GpuActor.Command> gpu;
  private final WriteBehind journal;
  private boolean doneReported;

  /** The step a standardized descent converged at, or -1: the run then ends there. */
  private long convergedAt = -1;

  /** Why training stopped at a non-finite step (null: it did not). */
  private String diverged;

  RunEnd(
      ActorContext<TrainingActor.Command> ctx,
      TimerScheduler<TrainingActor.Command> timers,
      NodeSettings settings,
      NodeLifecycle lifecycle,
      ActorRef<GpuActor.Command> gpu,
      WriteBehind journal) {
    this.ctx = ctx;
    this.timers = timers;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.gpu = gpu;
    this.journal = journal;
  }

  /** The step the run ends at: the converged step, else the step limit. */
  long target() {
    return convergedAt >= 0 ? convergedAt : settings.targetSteps();
  }

  /** The run converged at {@code step}: it ends there. */
  void converged(long step) {
    if (convergedAt < 0) {
      convergedAt = step;
    }
  }

  /**
   * The run is done when the target step is durable here: then the model file is written beside an
   * embedded journal ({@link #writeModel}) and the evidence, when asked for.
   *
   * @param summary an exact run's training summary, or null
   */
  void maybeDone(TrainingState state, java.util.Map<String, Object> summary) {
    if (doneReported || journal.durable() < target()) {
      return;
    }
    doneReported = true;
    StepTrace.write(settings.participant());
    writeModel(state, summary);
    ctx.getLog()
        .info(
            "target step {} durable: w={} loss={}",
            state.committed(),
            Bits.hexList(state.parameters()),
            state.loss());
    if (settings.evidence() != null) {
      ActorRef<GpuActor.EvidenceWritten> adapter =
          ctx.messageAdapter(
              GpuActor.EvidenceWritten.class, e -> new TrainingActor.EvidenceDone(e.error()));
      gpu.tell(
          new GpuActor.WriteEvidence(
              settings.evidence(), settings.contract().digest(), settings.participant(), adapter));
    } else {
      lifecycle.markTrainingDone(target());
    }
  }

  /**
   * {@code model.json} (the export format, {@link ModelJson}) beside the embedded journal of a node
   * whose target step is durable, written atomically and never over an existing file (a restarted
   * node that was done finds the one it wrote). Where the journal is PostgreSQL, or H2 without its
   * step log, there is no file beside it: {@code export} reads the journal, also while the node
   * runs. A failure to write is logged and does not end the node: the journal holds the model.
   */
  private void writeModel(TrainingState state, java.util.Map<String, Object> summary) {
    NodeSettings.StepLogSettings log = settings.stepLog();
    if (log == null || log.directory().getParent() == null) {
      return;
    }
    java.nio.file.Path file = log.directory().getParent().resolve(MODEL_FILE);
    if (java.nio.file.Files.exists(file)) {
      return;
    }
    try {
      byte[] json =
          ModelJson.of(
              state.contract(),
              settings.participant(),
              state.committed(),
              state.parameters(),
              state.loss(),
              summary);
      AtomicFiles.writeNew(file, ch -> ch.write(java.nio.ByteBuffer.wrap(json)));
      ctx.getLog().info("model written to {}", file);
    } catch (java.io.IOException e) {
      ctx.getLog().warn("cannot write the model to {}: {}", file, e.toString());
    }
  }

  /** The model file's name, beside the journal's database. */
  static final String MODEL_FILE = "model.json";

  void evidenceDone(String error) {
    if (error != null) {
      ctx.getLog().error(error);
      lifecycle.fail(error);
    } else {
      ctx.getLog().info("device evidence written to {}", settings.evidence());
      lifecycle.markTrainingDone(target());
    }
  }

  /**
   * A step whose update is not finite is not committed. Every participant computes the same update
   * from the same set, so each stops here at the same step on its own; this node writes what it
   * committed, then keeps its peer actor serving for a moment (a peer may still be asking for our
   * contribution to this step, and needs it to reach the same verdict) before the node ends.
   */
  void diverge(TrainingState.NonFinite e) {
    ctx.getLog().error(e.getMessage());
    diverged = e.getMessage();
    journal.write();
    endIfDiverged();
  }

  boolean diverged() {
    return diverged != null;
  }

  /** Once nothing waits for the journal, ends the node after five retry intervals. */
  void endIfDiverged() {
    if (diverged != null
        && journal.allDurable()
        && !timers.isTimerActive(TrainingActor.DivergedEnd.INSTANCE)) {
      timers.startSingleTimer(
          TrainingActor.DivergedEnd.INSTANCE, settings.retryInterval().multipliedBy(5));
    }
  }

  /** The diverged run's last finite step is durable and its peers had time to fetch ours. */
  void divergedEnd() {
    lifecycle.diverge(
        diverged
            + "; the journal ends at step "
            + journal.durable()
            + ", the last finite one. The learning rate "
            + settings.contract().rate().text()
            + " is too large for this data: gradient descent converges only below 2/lambda_max"
            + " (lambda_max the largest eigenvalue of X'X/n); rerun with a smaller --learning-rate"
            + " and a fresh --journal, or use --solver exact");
  }
}
