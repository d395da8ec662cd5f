package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
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
 * Durability behind the step, under crashes: two nodes whose journals lag far behind the committed
 * step (groups of up to 300 steps, up to 2 s old) are killed with SIGKILL at random moments, one
 * node and both at once, four times in one run, each kill followed by a restart. Committed steps
 * that were not durable are really lost (the test checks that some kill lost some), are recomputed
 * or served by the peer, and the run ends at exactly the bits of the uninterrupted run computed in
 * this JVM, each journal holding every step exactly once.
 */
@Tag("multiprocess")
class WriteBehindCrashTest {
  static final int STEPS = 4000;

  @TempDir Path dir;

  @Test
  void killsOfOneAndOfAllNodesWithALaggingJournalEndAtTheUninterruptedBits() throws Exception {
    DatasetGenerator.Result data =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(2 * 3000, 3, 2, 0.05, 23, true, PartitionFiles.Format.CSV),
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
            "1/16",
            new double[4],
            3,
            true,
            2,
            "files",
            700,
            ReductionOrder.VERSION);
    double[] expected = Simulation.run(contract, parts, STEPS);

    Path lagging = dir.resolve("lagging.conf");
    Files.writeString(
        lagging,
        "parreg.journal { group-steps = 300, group-ms = 2000, max-lag-steps = 600, max-lag-ms = 4000 }\n");
    Random rnd = new Random();
    long lost = 0;
    try (ClusterRun c =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    data.files().get(p).toString(),
                    "--solver",
                    "gd",
                    "--bias",
                    "--learning-rate",
                    "1/16",
                    "--batch-size",
                    "700",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "" + STEPS,
                    "--config",
                    lagging.toString()))) {
      long at = 200;
      int[][] faults = {{1}, {0, 1}, {0}, {0, 1}};
      for (int[] victims : faults) {
        at += 300 + rnd.nextInt(300);
        long target = at;
        JsonNode before =
            ClusterRun.await(
                c.node(victims[0]),
                s -> s.get("committedStep").asLong() >= target,
                "node " + victims[0] + " to reach step " + target);
        for (int v : victims) {
          c.node(v).kill9();
        }
        for (int v : victims) {
          c.node(v).restart();
        }
        for (int v : victims) {
          JsonNode resumed =
              ClusterRun.await(
                  c.node(v),
                  s ->
                      "done".equals(s.get("state").asText())
                          || (!"starting".equals(s.get("state").asText())
                              && s.get("committedStep").asLong() > s.get("recoveredStep").asLong()),
                  "node " + v + " to commit after its restart");
          if (v == victims[0]) {
            long tail =
                before.get("committedStep").asLong() - resumed.get("recoveredStep").asLong();
            lost += Math.max(0, tail);
            System.out.printf(
                "kill -9 of %s: node %d had committed %d (durable %d) shortly before, recovered at %d%n",
                java.util.Arrays.toString(victims),
                v,
                before.get("committedStep").asLong(),
                before.get("durableStep").asLong(),
                resumed.get("recoveredStep").asLong());
          }
        }
      }
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals(STEPS, s.get("durableStep").asLong(), "done means durable");
        List<String> bits = new ArrayList<>();
        s.get("weightBits").forEach(b -> bits.add(b.asText()));
        assertEquals(
            List.of(Bits.hex(expected)),
            bits,
            "participant " + s.get("participant") + " equals the uninterrupted run");
      }
    }
    assertTrue(lost > 0, "some kill lost committed steps that were not durable yet");
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }
}
