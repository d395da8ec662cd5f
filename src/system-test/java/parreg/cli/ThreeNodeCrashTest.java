package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Bits;
import parreg.device.Partition;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.Simulation;
import parreg.device.data.DatasetGenerator;
import parreg.device.data.PartitionFiles;

/**
 * Three node processes on generated file data with a bias and mini-batches (the last one short);
 * each node in turn is killed with SIGKILL at a random step and restarted. All three end at exactly
 * the bits of the uninterrupted run computed in this JVM, each journal holding every step exactly
 * once.
 */
@Tag("multiprocess")
class ThreeNodeCrashTest {
  static final int STEPS = 600;

  @TempDir Path dir;

  @Test
  void eachNodeKilledInTurnEndsAtTheUninterruptedBits() throws Exception {
    DatasetGenerator.Result data =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(3 * 2500, 3, 3, 0.05, 11, true, PartitionFiles.Format.CSV),
            dir.resolve("data"));
    List<Partition> parts = new ArrayList<>();
    for (Path f : data.files()) {
      parts.add(PartitionFiles.read(f));
    }
    RunContract contract =
        new RunContract(
            "parreg-run",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/8",
            new double[4],
            3,
            true,
            3,
            "files",
            700,
            ReductionOrder.VERSION);
    double[] expected = Simulation.run(contract, parts, STEPS);

    Random rnd = new Random();
    try (ClusterRun c =
        new ClusterRun(
            3,
            dir,
            p ->
                List.of(
                    "--data",
                    data.files().get(p).toString(),
                    "--solver",
                    "gd",
                    "--bias",
                    "--learning-rate",
                    "1/8",
                    "--batch-size",
                    "700",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "" + STEPS))) {
      long at = 30;
      for (int victim = 0; victim < 3; victim++) {
        at += 20 + rnd.nextInt(120);
        JsonNode resumed = c.crashAndRestart(victim, at);
        // crashAndRestart checked that it resumed at least where its journal was durable
        assertTrue(
            resumed.get("recoveredStep").asLong() > 0,
            "node " + victim + " resumed from its journal");
      }
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        List<String> bits = new ArrayList<>();
        s.get("weightBits").forEach(b -> bits.add(b.asText()));
        assertEquals(
            List.of(Bits.hex(expected)),
            bits,
            "participant " + s.get("participant") + " equals the uninterrupted run");
        assertEquals(
            4,
            s.get("batchesPerEpoch").asLong(),
            "2500 samples in batches of 700: 3 full and 1 short");
        assertEquals(STEPS / 4, s.get("epoch").asLong());
      }
    }
    ClusterRun.assertEveryStepOnce(dir, 3, STEPS);
  }
}
