package parreg.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import parreg.exchange.PeerActor;
import parreg.training.TrainingActor;

/**
 * Whom {@code status} says a node waits for. Before, a node started alone (its peers not started
 * yet) reported {@code waitingFor: []}: only the participants missing from a step in flight were
 * listed, and before the run starts there is none.
 */
class WaitingForTest {
  static PeerActor.View view(List<PeerActor.PeerState> peers, List<Integer> stepWaitsFor) {
    return new PeerActor.View(peers, 0, stepWaitsFor, 0, List.of(), null, null);
  }

  @Test
  void aNodeAloneWaitsForEveryOtherParticipant() {
    assertEquals(
        List.of(0, 2, 3),
        AdminActor.waitingFor(TrainingActor.Phase.STARTING, view(List.of(), List.of()), 4, 1));
  }

  @Test
  void anAdmittedPeerIsNotWaitedFor() {
    PeerActor.PeerState p2 = new PeerActor.PeerState(2, "pekko://parreg@127.0.0.1:2", 0, 0, 10);
    assertEquals(
        List.of(0, 3),
        AdminActor.waitingFor(TrainingActor.Phase.STARTING, view(List.of(p2), List.of()), 4, 1));
  }

  @Test
  void whileTrainingTheStepsMissingParticipantsAreNamed() {
    assertEquals(
        List.of(3),
        AdminActor.waitingFor(TrainingActor.Phase.TRAINING, view(List.of(), List.of(3)), 4, 1));
  }
}
