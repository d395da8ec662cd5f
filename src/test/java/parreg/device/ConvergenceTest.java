package parreg.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.data.DatasetGenerator;
import parreg.device.data.PartitionFiles;

/**
 * Training on generated data (200,000 rows, d = 8, bias, noise 0.01, two partitions) reaches the
 * true weights within a bound derived from the noise, and the final parameters are the same bits on
 * a rerun, with the reference and the fast CPU path, and from CSV and binary partitions.
 */
class ConvergenceTest {
  @TempDir Path dir;

  static RunContract contract(int batch) {
    return new RunContract(
        "convergence",
        RunContract.SCHEMA,
        RunContract.CHECKPOINT_CONTRACT,
        RunContract.LOSS,
        "1/2",
        new double[9],
        8,
        true,
        2,
        "generated",
        batch,
        ReductionOrder.VERSION);
  }

  static List<Partition> read(List<Path> files) throws Exception {
    List<Partition> out = new ArrayList<>();
    for (Path f : files) {
      out.add(PartitionFiles.read(f));
    }
    return out;
  }

  @Test
  void reachesTheTrueWeightsWithTheSameBitsEverywhere() throws Exception {
    double sigma = 0.01;
    int rows = 200_000;
    DatasetGenerator.Result bin =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(rows, 8, 2, sigma, 5, true, PartitionFiles.Format.BINARY),
            dir.resolve("bin"));
    DatasetGenerator.Result csv =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(rows, 8, 2, sigma, 5, true, PartitionFiles.Format.CSV),
            dir.resolve("csv"));
    List<Partition> parts = read(bin.files());

    // Full-batch steps converge to the least-squares solution, whose distance to the truth is of
    // order sigma / sqrt(N) per coefficient (unit-variance features); allow 6 of those, plus the
    // binary32 rounding of the data and of w.
    double[] w = Simulation.run(contract(0), parts, 120, CpuBackend.Mode.FAST);
    double bound = 6 * sigma / Math.sqrt(rows) + 2e-6;
    for (int j = 0; j < 8; j++) {
      assertTrue(
          Math.abs(w[j] - bin.weights()[j]) < bound,
          "w" + j + " = " + w[j] + " vs true " + bin.weights()[j] + ", bound " + bound);
    }
    assertTrue(Math.abs(w[8] - bin.bias()) < bound, "b = " + w[8] + " vs true " + bin.bias());

    // Mini-batches: same bits on a rerun, on the reference path, and from the CSV copy of the rows.
    double[] fast = Simulation.run(contract(4096), parts, 60, CpuBackend.Mode.FAST);
    assertArrayEquals(
        Bits.hex(fast),
        Bits.hex(Simulation.run(contract(4096), parts, 60, CpuBackend.Mode.FAST)),
        "rerun");
    assertArrayEquals(
        Bits.hex(fast),
        Bits.hex(Simulation.run(contract(4096), parts, 60, CpuBackend.Mode.REFERENCE)),
        "reference");
    assertArrayEquals(
        Bits.hex(fast),
        Bits.hex(Simulation.run(contract(4096), read(csv.files()), 60, CpuBackend.Mode.FAST)),
        "csv");
  }
}
