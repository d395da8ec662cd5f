package parreg.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.Workers;
import parreg.device.cuda.CudaBackend;
import parreg.solver.ColumnData;
import parreg.solver.GramOrder;
import parreg.solver.GramPass;

/**
 * The exact solver's statistics pass on the card (CudaBackend.launchStatistics: the statistics
 * kernels, the tree and the result's copy, data resident), shape by shape: milliseconds by the
 * device's events (median and best of REPS after warm-up) and the FP64 rate of the useful work,
 * {@code 2 N m (m + 1) / 2} flops for {@code m = d + 2} (one FMA per entry of the packed triangle
 * and sample; the card's peak without tensor cores is about 34 TFLOP/s on an H200). {@code --check}
 * compares the bits with the CPU pass (GramPass) once a shape.
 *
 * <p>Usage: {@code GpuGramBench [--device 0] [--reps 20] [--check] [NxD,...]} (default
 * 20000000x64,1000000x16,400000x1024,100000x4096).
 */
public final class GpuGramBench {
  private GpuGramBench() {}

  public static void main(String[] args) {
    String device = "0";
    int reps = 20;
    boolean check = false;
    String shapes = "20000000x64,1000000x16,400000x1024,100000x4096";
    // at least one timed launch
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--device" -> device = args[++i];
        case "--reps" -> reps = Math.max(1, Integer.parseInt(args[++i]));
        case "--check" -> check = true;
        default -> shapes = args[i];
      }
    }
    System.out.println("shape\tplan\tpass\tms_median\tms_min\tTFLOP_s_median\tTFLOP_s_best\tbits");
    for (String s : shapes.split(",")) {
      String[] nd = s.split("x");
      int n = Integer.parseInt(nd[0]);
      int d = Integer.parseInt(nd[1]);
      Partition p = GpuGradientBench.randomPartition(n, d, 11);
      String bits = "-";
      List<Double> ms = new ArrayList<>();
      String plan;
      String pass;
      LocalSums got;
      try (CudaBackend b = CudaBackend.openForBenchmark(device, null, true, null)) {
        b.load(p, true);
        got = b.launchStatistics().await();
        for (int w = 0; w < 3; w++) {
          b.launchStatistics().await();
        }
        for (int r = 0; r < reps; r++) {
          KernelBackend.Launch l = b.launchStatistics();
          l.await();
          ms.add(l.deviceMillis());
        }
        plan = b.plan();
        pass = b.statisticsShape();
      } catch (parreg.device.BackendUnavailableException e) {
        System.err.println("no CUDA device: " + e.getMessage());
        System.exit(1);
        return;
      }
      if (check) {
        LocalSums want =
            parreg.device.ExactStep.contribution(
                GramPass.compute(
                    ColumnData.of(p.featureMajor(), p.targets(), n, d), Workers.defaultThreads()));
        bits = want.equals(got) ? "identical" : "DIFFERENT";
      }
      double[] sorted = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double med = sorted[sorted.length / 2];
      double min = sorted[0];
      int m = GramOrder.columns(d);
      double flops = 2.0 * n * ((double) m * (m + 1) / 2);
      System.out.println(
          String.format(
              Locale.ROOT,
              "%dx%d\t%s\t%s\t%.3f\t%.3f\t%.2f\t%.2f\t%s",
              n,
              d,
              plan,
              pass,
              med,
              min,
              flops / med / 1e9,
              flops / min / 1e9,
              bits));
    }
  }
}
