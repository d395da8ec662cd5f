package parreg.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import parreg.solver.ColumnData;
import parreg.solver.GramOrder;
import parreg.solver.GramPass;
import parreg.solver.GramStats;

/**
 * CPU speed of the least-squares statistics pass ({@link GramPass}, order {@value
 * GramOrder#VERSION}) on random data: per d, the median and best wall time of one pass over n
 * samples, rows per second, and GFLOP/s counted as {@code 2 n m (m + 1) / 2} with {@code m = d + 2}
 * columns ({@code [x, y, 1]}: one multiply and one add per triangle entry and sample), and the
 * process CPU time of one pass (all threads; comparable where other work shares the machine).
 * Checks that every repetition gave the same bits.
 *
 * <p>Usage: {@code GramPassBench [--n 1000000] [--d 16,64] [--reps 7] [--threads 2] [--bits 32]}.
 * Run with {@code --add-modules jdk.incubator.vector} for the SIMD lanes.
 */
public final class GramPassBench {
  private GramPassBench() {}

  public static void main(String[] args) {
    int n = 1_000_000;
    int[] ds = {16, 64};
    int reps = 7;
    int threads = 2;
    int bits = 32;
    for (int a = 0; a < args.length; a++) {
      switch (args[a]) {
        case "--n" -> n = (int) Double.parseDouble(args[++a]);
        case "--d" ->
            ds = Arrays.stream(args[++a].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--reps" -> reps = Integer.parseInt(args[++a]);
        case "--threads" -> threads = Integer.parseInt(args[++a]);
        case "--bits" -> bits = Integer.parseInt(args[++a]);
        default -> throw new IllegalArgumentException("unknown argument " + args[a]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "java %s, %d processors, %d threads, simd %s, order %s%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        threads,
        GramPass.VECTOR_AVAILABLE,
        GramOrder.VERSION);
    for (int d : ds) {
      ColumnData data = data(n, d, bits);
      GramStats first = null;
      double[] ms = new double[reps];
      double[] cpu = new double[reps];
      for (int r = -1; r < reps; r++) {
        long c0 = processCpuNanos();
        long t0 = System.nanoTime();
        GramStats s = GramPass.compute(data, threads);
        long t1 = System.nanoTime();
        long c1 = processCpuNanos();
        if (first == null) {
          first = s;
        } else if (!first.sameBits(s)) {
          throw new IllegalStateException("repetition " + r + " gave other bits");
        }
        if (r >= 0) {
          ms[r] = (t1 - t0) / 1e6;
          cpu[r] = (c1 - c0) / 1e6;
        }
      }
      Arrays.sort(ms);
      Arrays.sort(cpu);
      double med = ms[reps / 2];
      double best = ms[0];
      int m = GramOrder.columns(d);
      double flops = 2.0 * n * m * (m + 1) / 2;
      System.out.printf(
          Locale.ROOT,
          "parreg-gram-f%d n=%d d=%d: median %.2f ms (%.1f M rows/s, %.2f GFLOP/s), best %.2f ms"
              + " (%.1f M rows/s, %.2f GFLOP/s), cpu median %.1f ms best %.1f ms%n",
          bits,
          n,
          d,
          med,
          n / med / 1e3,
          flops / med / 1e6,
          best,
          n / best / 1e3,
          flops / best / 1e6,
          cpu[reps / 2],
          cpu[0]);
    }
  }

  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun
        ? sun.getProcessCpuTime()
        : -1;
  }

  private static ColumnData data(int n, int d, int bits) {
    SplittableRandom r = new SplittableRandom(42);
    if (bits == 32) {
      float[] x = new float[n * d];
      float[] y = new float[n];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) r.nextGaussian();
      }
      for (int i = 0; i < n; i++) {
        y[i] = (float) r.nextGaussian();
      }
      return ColumnData.of(x, y, n, d);
    }
    double[] x = new double[n * d];
    double[] y = new double[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextGaussian();
    }
    for (int i = 0; i < n; i++) {
      y[i] = r.nextGaussian();
    }
    return ColumnData.of(x, y, n, d);
  }
}
