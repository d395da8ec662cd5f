package parreg.training;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import parreg.device.Partition;
import parreg.device.SeedData;
import parreg.protocol.TrainingState;
import parreg.settings.NodeSettings;
import parreg.training.journal.WriteBehindTest;

/** Whether a recovered journal belongs to this node: its contract, and its own partition. */
class TrainingRecoveryTest {
  static NodeSettings settings(Partition partition) {
    return WriteBehindTest.settings(partition, 8, 4);
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
