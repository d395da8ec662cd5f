package parreg.protocol;

import java.util.Arrays;
import parreg.device.Bits;
import parreg.device.ExactStep;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.device.StandardizedDescent;
import parreg.device.UpdateRule;
import parreg.persistence.KryoSerializable;

/**
 * The training actor's state, which is also its snapshot: the contract and roster once the run has
 * started, the last committed step, the parameters after it and that step's loss. Immutable; events
 * are applied with checks, so a journal that is not contiguous or whose recorded update does not
 * recompute is reported instead of accepted.
 */
public record TrainingState(
    RunContract contract, PartitionInfo[] roster, long committed, double[] parameters, double loss)
    implements KryoSerializable {

  public static TrainingState empty() {
    return new TrainingState(null, null, 0, null, Double.NaN);
  }

  public boolean started() {
    return contract != null;
  }

  /**
   * The state after the run's opening event: recovery, {@code predict}, {@code export} and the
   * journal checks all replay through here and {@link #apply(StepCommitted)}.
   *
   * @throws IllegalStateException when the journal already started a run
   */
  public TrainingState apply(RunStarted e) {
    if (started()) {
      throw new IllegalStateException("journal holds a second RunStarted event");
    }
    return new TrainingState(
        e.contract(), e.roster(), 0, e.contract().initialWeights(), Double.NaN);
  }

  /**
   * The state after step {@code step} with these contributions (SPEC section 2's combination and
   * update, {@link UpdateRule}): how the training actor commits a step, and what replay checks a
   * recorded step against.
   */
  public TrainingState next(long step, parreg.device.LocalSums[] contributions) {
    if (!started()) {
      throw new IllegalStateException(
          "journal holds step " + step + " before the run's RunStarted event");
    }
    if (step != committed + 1) {
      throw new IllegalStateException(
          "journal is not contiguous: step " + step + " follows step " + committed);
    }
    if (contributions.length != contract.participants()) {
      throw new IllegalStateException(
          "journal step "
              + step
              + " holds "
              + contributions.length
              + " contributions, the run has "
              + contract.participants()
              + " participants");
    }
    UpdateRule.Outcome o =
        contract.solverSpec().exact()
            ? exactStep(step, contributions)
            : contract.solverSpec().standardized()
                ? StandardizedDescent.apply(contract, parameters, contributions).outcome()
                : UpdateRule.apply(
                    parameters,
                    contributions,
                    contract.rate().value(),
                    contract.solverSpec().l2Value(),
                    contract.bias());
    double[] w = o.parameters();
    for (int j = 0; j < w.length; j++) {
      if (!Double.isFinite(w[j])) {
        throw new NonFinite(step, "parameter " + parameterName(j) + " = " + w[j]);
      }
    }
    if (!Double.isFinite(o.loss())) {
      throw new NonFinite(step, "loss = " + o.loss());
    }
    return new TrainingState(contract, roster, step, w, o.loss());
  }

  /** The exact solver's one step: the solve of the merged statistics ({@link ExactStep}). */
  private UpdateRule.Outcome exactStep(long step, LocalSums[] contributions) {
    if (step != ExactStep.STEP) {
      throw new IllegalStateException(
          "an exact run commits step " + ExactStep.STEP + " only, not step " + step);
    }
    return ExactStep.apply(contract, contributions);
  }

  /**
   * A step whose update or loss is not finite (a diverging run: the learning rate too large for the
   * data). It is never committed: every participant computes the same update from the same set, so
   * all of them stop at the same step, and the journal ends at the last finite step.
   */
  public static final class NonFinite extends RuntimeException {
    private final long step;
    private final String what;

    NonFinite(long step, String what) {
      super(
          "training diverged at step "
              + step
              + ": "
              + what
              + " (not finite); the step was not committed");
      this.step = step;
      this.what = what;
    }

    public long step() {
      return step;
    }
  }

  private String parameterName(int j) {
    return contract.bias() && j == parameters.length - 1 ? "b" : "w" + (j + 1);
  }

  /**
   * The state after a committed step, checked against what the step recomputes.
   *
   * @throws IllegalStateException naming what does not match
   */
  public TrainingState apply(StepCommitted e) {
    TrainingState recomputed;
    try {
      recomputed = next(e.step(), e.contributions());
    } catch (NonFinite n) {
      // Only a version before the check committed such a step (a journal of a diverged run).
      throw new IllegalStateException(
          "journal step " + e.step() + " holds a non-finite update: " + n.what);
    }
    if (!Bits.sameBits(recomputed.parameters(), e.parameters())
        || Double.doubleToRawLongBits(recomputed.loss()) != Double.doubleToRawLongBits(e.loss())) {
      throw new IllegalStateException(
          "journal step "
              + e.step()
              + " does not recompute: recorded parameters "
              + Bits.hexList(e.parameters())
              + ", recomputed "
              + Bits.hexList(recomputed.parameters()));
    }
    return new TrainingState(contract, roster, e.step(), e.parameters(), e.loss());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TrainingState s
        && java.util.Objects.equals(contract, s.contract)
        && Arrays.equals(roster, s.roster)
        && committed == s.committed
        && (parameters == null
            ? s.parameters == null
            : s.parameters != null && Bits.sameBits(parameters, s.parameters))
        && Double.doubleToRawLongBits(loss) == Double.doubleToRawLongBits(s.loss);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(committed);
  }

  @Override
  public String toString() {
    return "TrainingState{committed="
        + committed
        + ", parameters="
        + (parameters == null ? "-" : Bits.hexList(parameters))
        + "}";
  }
}
