package parreg.actors;

import java.util.Arrays;
import parreg.device.Bits;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.device.UpdateRule;
import parreg.persistence.KryoSerializable;

/**
 * The training actor's state, which is also its snapshot: the contract and roster once the run
 * has started, the last committed step, the parameters after it and that step's loss. Immutable;
 * events are applied with checks, so a journal that is not contiguous or whose recorded update
 * does not recompute is reported instead of accepted.
 */
public record TrainingState(RunContract contract, PartitionInfo[] roster, long committed, double[] parameters, double loss)
    implements KryoSerializable {

  public static TrainingState empty() {
    return new TrainingState(null, null, 0, null, Double.NaN);
  }

  public boolean started() {
    return contract != null;
  }

  TrainingState apply(TrainingActor.RunStarted e) {
    if (started()) {
      throw new IllegalStateException("journal holds a second RunStarted event");
    }
    return new TrainingState(e.contract(), e.roster(), 0, e.contract().initialWeights(), Double.NaN);
  }

  /**
   * The state after step {@code step} with these contributions (SPEC section 2's combination and
   * update, {@link UpdateRule}): how the training actor commits a step, and what replay checks a
   * recorded step against.
   */
  TrainingState next(long step, parreg.device.LocalSums[] contributions) {
    if (!started()) {
      throw new IllegalStateException("journal holds step " + step + " before the run's RunStarted event");
    }
    if (step != committed + 1) {
      throw new IllegalStateException("journal is not contiguous: step " + step + " follows step " + committed);
    }
    if (contributions.length != contract.participants()) {
      throw new IllegalStateException("journal step " + step + " holds " + contributions.length
          + " contributions, the run has " + contract.participants() + " participants");
    }
    UpdateRule.Outcome o = UpdateRule.apply(parameters, contributions, contract.rate().value());
    return new TrainingState(contract, roster, step, o.parameters(), o.loss());
  }

  TrainingState apply(TrainingActor.StepCommitted e) {
    TrainingState recomputed = next(e.step(), e.contributions());
    if (!Bits.sameBits(recomputed.parameters(), e.parameters())
        || Double.doubleToRawLongBits(recomputed.loss()) != Double.doubleToRawLongBits(e.loss())) {
      throw new IllegalStateException("journal step " + e.step() + " does not recompute: recorded parameters "
          + Bits.hexList(e.parameters()) + ", recomputed " + Bits.hexList(recomputed.parameters()));
    }
    return new TrainingState(contract, roster, e.step(), e.parameters(), e.loss());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TrainingState s
        && java.util.Objects.equals(contract, s.contract)
        && Arrays.equals(roster, s.roster)
        && committed == s.committed
        && (parameters == null ? s.parameters == null : s.parameters != null && Bits.sameBits(parameters, s.parameters))
        && Double.doubleToRawLongBits(loss) == Double.doubleToRawLongBits(s.loss);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(committed);
  }

  @Override
  public String toString() {
    return "TrainingState{committed=" + committed + ", parameters=" + (parameters == null ? "-" : Bits.hexList(parameters)) + "}";
  }
}
