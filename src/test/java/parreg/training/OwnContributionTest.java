package parreg.training;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import parreg.device.Batching;
import parreg.device.LocalSums;
import parreg.exchange.PeerActor;

/**
 * This node's contribution is checked against the set it is handed and against the entry a peer
 * recorded for it (a node catching up): any difference in bits refuses the step.
 */
class OwnContributionTest {
  static final LocalSums MINE = new LocalSums(new double[] {6.0}, 9.0, 1);
  static final LocalSums THEIRS = new LocalSums(new double[] {18.0}, 45.0, 2);

  /** Participant 0, its contribution to step 5 computed ahead (no actor is told anything). */
  static OwnContribution computed() {
    OwnContribution own = new OwnContribution(null, null, null, new Batching(3, 0), 0);
    own.computed(5, MINE, false);
    return own;
  }

  @Test
  void theSameBitsPass() {
    OwnContribution own = computed();
    assertTrue(own.has(5));
    assertFalse(own.has(6));
    assertNull(own.mismatch(new PeerActor.StepReady(5, new LocalSums[] {MINE, THEIRS}, null)));
    assertNull(own.mismatch(new PeerActor.StepReady(5, new LocalSums[] {MINE, THEIRS}, MINE)));
    own.committed();
    assertFalse(own.has(5));
  }

  @Test
  void anotherEntryOrRecordedOneIsRefusedNamingBoth() {
    OwnContribution own = computed();
    LocalSums oneUlpOff = new LocalSums(new double[] {Math.nextUp(6.0)}, 9.0, 1);
    String inSet =
        own.mismatch(new PeerActor.StepReady(5, new LocalSums[] {oneUlpOff, THEIRS}, null));
    assertTrue(inSet.startsWith("step 5: this node's recomputed contribution "), inSet);
    assertTrue(inSet.contains("refusing to continue"), inSet);
    String recorded =
        own.mismatch(new PeerActor.StepReady(5, new LocalSums[] {MINE, THEIRS}, THEIRS));
    assertTrue(recorded.contains("differs from the one its peers recorded " + THEIRS), recorded);
  }
}
