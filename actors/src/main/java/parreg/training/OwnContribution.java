package parreg.training;

import org.apache.pekko.actor.typed.ActorRef;
import parreg.device.Batching;
import parreg.device.LocalSums;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.metrics.StepTrace;
import parreg.protocol.TrainingState;

/**
 * This node's contribution to the next step: asked of the GPU actor (ahead of the step while the
 * journal holds it up), published to the peer actor once the step has started, and checked against
 * the one the peers recorded before the step commits (a node catching up is served sets that carry
 * its own recorded contribution).
 *
 * <p>Not thread-safe: the training actor owns it.
 */
final class OwnContribution {
  private final ActorRef<GpuActor.Command> gpu;
  private final ActorRef<PeerActor.Command> peer;
  private final ActorRef<GpuActor.Computed> computedAdapter;
  private final Batching batching;
  private final int participant;
  private final boolean statistics;

  /** The step whose contribution was last asked of the GPU actor (see {@link #computeAhead}). */
  private long computeSent = -1;

  private long ownStep = -1;
  private LocalSums ownSums;

  /**
   * The partition's column moments, appended to every contribution of a standardized descent
   * ({@link parreg.device.StandardizedDescent}); null for every other solver.
   */
  private java.util.function.Supplier<double[]> moments;

  private double[] momentsValue;

  OwnContribution(
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<GpuActor.Computed> computedAdapter,
      Batching batching,
      int participant) {
    this(gpu, peer, computedAdapter, batching, participant, false);
  }

  /**
   * @param statistics whether the contribution is the exact solver's statistics ({@link
   *     parreg.device.ExactStep}) rather than a gradient
   */
  OwnContribution(
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<GpuActor.Computed> computedAdapter,
      Batching batching,
      int participant,
      boolean statistics) {
    this.gpu = gpu;
    this.peer = peer;
    this.computedAdapter = computedAdapter;
    this.batching = batching;
    this.participant = participant;
    this.statistics = statistics;
  }

  /** Step {@code state.committed() + 1} has started: publish its contribution, or compute it. */
  void start(TrainingState state) {
    long step = state.committed() + 1;
    if (ownStep == step && ownSums != null) {
      peer.tell(new PeerActor.Publish(step, ownSums));
      return;
    }
    if (computeSent != step) {
      compute(step, state);
    } // else computed ahead and not back yet: computed() publishes it
  }

  /**
   * While the journal holds the next step up (with {@code --sync-commit} on PostgreSQL, on every
   * step), its own contribution is computed already: it depends only on the committed parameters,
   * and nothing derived from them leaves the node before the journal lets the step start ({@link
   * #start} publishes it then). The device works while the journal writes, instead of after it.
   */
  void computeAhead(TrainingState state) {
    long step = state.committed() + 1;
    if (computeSent != step && ownStep != step) {
      compute(step, state);
    }
  }

  private void compute(long step, TrainingState state) {
    computeSent = step;
    StepTrace.stamp(0, step);
    if (statistics) {
      gpu.tell(new GpuActor.ComputeStatistics(step, computedAdapter));
      return;
    }
    int batch = batching.batchOfStep(step);
    gpu.tell(
        new GpuActor.Compute(
            step,
            state.parameters(),
            batching.start(batch),
            batching.length(batch),
            computedAdapter));
  }

  /**
   * The GPU actor's answer for {@code step}, the next step; published at once when that step is in
   * flight.
   */
  void computed(long step, LocalSums kernelSums, boolean inFlight) {
    StepTrace.stamp(3, step);
    LocalSums sums = kernelSums;
    if (moments != null) {
      if (momentsValue == null) {
        momentsValue = moments.get(); // one pass over the partition, on the first step only
      }
      sums = parreg.device.StandardizedDescent.contribution(kernelSums, momentsValue);
    }
    ownStep = step;
    ownSums = sums;
    if (inFlight) {
      peer.tell(new PeerActor.Publish(step, sums));
    } // else computed ahead: published once the step starts
  }

  /** Appends the partition's moments ({@code supplier}, asked once) to every contribution. */
  OwnContribution withMoments(java.util.function.Supplier<double[]> supplier) {
    this.moments = supplier;
    return this;
  }

  /** Whether this node's contribution to {@code step} is here. */
  boolean has(long step) {
    return ownStep == step && ownSums != null;
  }

  /**
   * Why step {@code r.step()}'s set cannot be committed here: its entry for this node, or the one a
   * peer recorded, is not what this node recomputed; null when they agree.
   */
  String mismatch(PeerActor.StepReady r) {
    LocalSums mine = r.contributions()[participant];
    if (ownSums.sameBits(mine) && (r.recordedOwn() == null || ownSums.sameBits(r.recordedOwn()))) {
      return null;
    }
    return "step "
        + r.step()
        + ": this node's recomputed contribution "
        + ownSums
        + " differs from the one its peers recorded "
        + (r.recordedOwn() != null ? r.recordedOwn() : mine)
        + "; refusing to continue (different data, code or device arithmetic?)";
  }

  /** The step committed: its contribution is no longer needed. */
  void committed() {
    ownSums = null;
    ownStep = -1;
  }
}
