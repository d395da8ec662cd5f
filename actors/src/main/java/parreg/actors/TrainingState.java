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

  TrainingState apply(TrainingActor.StepCommitted e) {
    if (!started()) {
      throw new IllegalStateException("journal holds step " + e.step() + " before the run's RunStarted event");
    }
    if (e.step() != committed + 1) {
      throw new IllegalStateException("journal is not contiguous: step " + e.step() + " follows step " + committed);
    }
    if (e.contributions().length != contract.participants()) {
      throw new IllegalStateException("journal step " + e.step() + " holds " + e.contributions().length
          + " contributions, the run has " + contract.participants() + " participants");
    }
    UpdateRule.Outcome o = UpdateRule.apply(parameters, e.contributions(), contract.rate().value());
    if (!Bits.sameBits(o.parameters(), e.parameters())
        || Double.doubleToRawLongBits(o.loss()) != Double.doubleToRawLongBits(e.loss())) {
      throw new IllegalStateException("journal step " + e.step() + " does not recompute: recorded parameters "
          + Bits.hexList(e.parameters()) + ", recomputed " + Bits.hexList(o.parameters()));
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
