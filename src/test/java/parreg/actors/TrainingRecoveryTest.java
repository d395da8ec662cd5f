package parreg.actors;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.SeedData;

/** Whether a recovered journal belongs to this node: its contract, and its own partition. */
class TrainingRecoveryTest {
  static NodeSettings settings(Partition partition) {
    return new NodeSettings(
        0,
        TrainingActorTest.SEED,
        PartitionSource.of(partition),
        10,
        "cpu",
        "0",
        null,
        false,
        20,
        Duration.ZERO,
        1024,
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        8,
        Duration.ofSeconds(1),
        4,
        Duration.ofMillis(100),
        "/j",
        Duration.ZERO);
  }

  @Test
  void aNewJournalOrTheSameRunAndDataIsAccepted() {
    NodeSettings s = settings(SeedData.partition(0));
    assertNull(TrainingRecovery.refusal(s, TrainingState.empty()));
    assertNull(TrainingRecovery.refusal(s, TrainingStatusTest.STARTED));
  }

  @Test
  void otherDataIsRefusedNamingBothPartitions() {
    NodeSettings s = settings(Partition.ofRows(new float[][] {{1.5f}}, new float[] {0f}));
    String why = TrainingRecovery.refusal(s, TrainingStatusTest.STARTED);
    assertTrue(why.startsWith("participant 0's data differs from the journal's roster"), why);
  }
}
