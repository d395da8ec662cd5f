package parreg.training;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import parreg.protocol.RunStarted;
import parreg.protocol.TrainingState;

/** The phase a node reports, from its state, roster, durable step and the step in flight. */
class TrainingStatusTest {
  static final TrainingState STARTED =
      TrainingState.empty().apply(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER));

  @Test
  void startingUntilTheRunStartedWithItsRoster() {
    assertEquals(
        TrainingActor.Phase.STARTING,
        TrainingStatus.phase(TrainingState.empty(), true, 0, 10, false));
    assertEquals(TrainingActor.Phase.STARTING, TrainingStatus.phase(STARTED, false, 0, 10, true));
  }

  @Test
  void trainingWaitingAndDoneOnlyOnceTheTargetIsDurable() {
    assertEquals(TrainingActor.Phase.TRAINING, TrainingStatus.phase(STARTED, true, 0, 10, false));
    assertEquals(TrainingActor.Phase.WAITING, TrainingStatus.phase(STARTED, true, 0, 10, true));
    TrainingState atOne = STARTED.apply(TrainingStateTest.step(1, new double[] {3.0}));
    assertEquals(
        TrainingActor.Phase.TRAINING,
        TrainingStatus.phase(atOne, true, 0, 1, false),
        "committed, not durable");
    assertEquals(TrainingActor.Phase.DONE, TrainingStatus.phase(atOne, true, 1, 1, true));
  }
}
