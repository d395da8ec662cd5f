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
import parreg.device.CpuBackend;
import parreg.device.ExactStep;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.SolverSpec;
import parreg.device.data.DatasetGenerator;
import parreg.device.data.PartitionFiles;
import parreg.solver.ExactSolver;
import parreg.solver.GramOrder;

/**
 * The exact solver on real node processes: two participants, each with a CSV partition; the node of
 * participant 1 is killed with SIGKILL at a random moment of its start or its pass (before the one
 * step commits) and restarted. Both end with the bits of the solve of the two partitions'
 * statistics computed in this JVM (single-threaded reference pass), and each journal holds the step
 * once; a rerun of the finished run from its journals holds the same bits.
 */
@Tag("multiprocess")
class ExactRunCrashTest {
  @TempDir Path dir;

  @Test
  void aNodeKilledDuringThePassEndsWithTheBitsOfTheReferenceSolve() throws Exception {
    DatasetGenerator.Result data =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(20_000, 6, 2, 0.25, 7, true, PartitionFiles.Format.CSV),
            dir.resolve("data"));
    List<Path> files = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      files.add(dir.resolve("data").resolve("part-" + p + ".csv"));
    }
    String expected = Bits.hexList(reference(files));

    long killAfterMs = new Random().nextInt(2500);
    try (ClusterRun c = new ClusterRun(2, dir, p -> args(files, p))) {
      Thread.sleep(killAfterMs);
      NodeProcess victim = c.node(1);
      victim.kill9();
      victim.restart();
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(1, s.get("committedStep").asLong(), "an exact run commits one step");
        assertEquals(
            expected, bits(s), "the reference solve's bits (kill after " + killAfterMs + " ms)");
      }
    }
    ClusterRun.assertEveryStepOnce(dir, 2, 1);

    // The same command lines again, on the finished journals: nothing to compute, same bits.
    try (ClusterRun c = new ClusterRun(2, dir, p -> args(files, p))) {
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(expected, bits(s));
        assertTrue(s.get("recoveredStep").asLong() == 1, "recovered the solved step");
      }
    }
    assertTrue(data.describeModel().contains("w ="), data.describeModel());
  }

  private List<String> args(List<Path> files, int p) {
    return List.of(
        "--data",
        files.get(p).toString(),
        "--bias",
        "--solver",
        "exact",
        "--precision",
        "f32",
        "--journal",
        dir.resolve("node-" + p).toString(),
        "--steps",
        "50");
  }

  private static String bits(JsonNode status) {
    List<String> out = new ArrayList<>();
    status.get("weightBits").forEach(b -> out.add(b.asText()));
    return "[" + String.join(",", out) + "]";
  }

  /** The solve of both partitions' statistics, computed here: the bits every node must hold. */
  static double[] reference(List<Path> files) {
    return reference(files, parreg.device.Precision.F32);
  }

  /** As {@link #reference(List)}, the files read in {@code precision}. */
  static double[] reference(List<Path> files, parreg.device.Precision precision) {
    LocalSums[] parts = new LocalSums[files.size()];
    int d = 0;
    for (int p = 0; p < parts.length; p++) {
      Partition part = read(files.get(p), precision);
      d = part.features();
      parts[p] = CpuBackend.statistics(part, 1);
    }
    RunContract contract =
        new RunContract(
                "parreg-run",
                RunContract.SCHEMA,
                RunContract.CHECKPOINT_CONTRACT,
                RunContract.LOSS,
                "1/4",
                new double[d + 1],
                d,
                true,
                files.size(),
                "files",
                0,
                ReductionOrder.VERSION)
            .withSolver(SolverSpec.exact(GramOrder.VERSION, ExactSolver.NAME, "0"))
            .withPrecision(precision);
    return ExactStep.apply(contract, parts).parameters();
  }

  private static Partition read(Path file, parreg.device.Precision precision) {
    return DataFiles.open(
            "--data",
            file,
            parreg.device.data.CsvColumns.DEFAULT,
            parreg.device.data.CsvDialect.DEFAULT,
            parreg.device.data.RowSlice.ALL,
            precision)
        .rows()
        .join();
  }
}
