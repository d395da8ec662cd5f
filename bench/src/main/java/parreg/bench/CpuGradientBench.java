package parreg.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import parreg.device.FastCpuKernel;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReferenceKernel;

/**
 * CPU gradient throughput: one participant's local sums over a whole partition (SPEC section 2,
 * steps 1 to 3 plus the loss) by {@link FastCpuKernel} and by {@link ReferenceKernel}, at several d
 * with N * d about constant. Prints, per kernel and d: N, the bytes of X and y read, the median and
 * the best wall time of one computation and the throughput at each (bytes of X and y per second),
 * and checks that both kernels gave the same bits.
 *
 * <p>Usage: {@code CpuGradientBench [--values 1e8] [--d 1,16,256] [--reps 9] [--ref-reps 3]
 * [--threads T]}. Run with {@code --add-modules jdk.incubator.vector} (the SIMD path) and enough
 * heap for 4 * values * (1 + 1/d) bytes.
 */
public final class CpuGradientBench {
  private CpuGradientBench() {}

  public static void main(String[] args) {
    long values = 100_000_000L;
    int[] ds = {1, 16, 256};
    int reps = 9;
    int refReps = 3;
    int threads = Runtime.getRuntime().availableProcessors();
    for (int a = 0; a < args.length; a++) {
      switch (args[a]) {
        case "--values" -> values = (long) Double.parseDouble(args[++a]);
        case "--d" ->
            ds = Arrays.stream(args[++a].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--reps" -> reps = Integer.parseInt(args[++a]);
        case "--ref-reps" -> refReps = Integer.parseInt(args[++a]);
        case "--threads" -> threads = Integer.parseInt(args[++a]);
        default -> throw new IllegalArgumentException("unknown argument " + args[a]);
      }
    }
    try (FastCpuKernel fast = new FastCpuKernel(threads)) {
      System.out.printf(
          Locale.ROOT,
          "java %s, %d processors, fast kernel: %s%n",
          System.getProperty("java.version"),
          Runtime.getRuntime().availableProcessors(),
          fast.describe());
      for (int d : ds) {
        int n = (int) (values / d);
        Partition p = data(n, d);
        double[] w = new double[d];
        for (int j = 0; j < d; j++) {
          w[j] = 0.1 * j - 0.5;
        }
        long bytes = 4L * ((long) n * d + n);
        LocalSums[] fastOut = new LocalSums[1];
        double[] fastMs = times(reps, () -> fastOut[0] = fast.compute(p, 0, n, w, false));
        print("parreg-fast", d, n, bytes, fastMs);
        if (refReps > 0) {
          LocalSums[] refOut = new LocalSums[1];
          double[] refMs =
              times(refReps, () -> refOut[0] = ReferenceKernel.compute(p, 0, n, w, false));
          print("parreg-reference", d, n, bytes, refMs);
          if (!refOut[0].sameBits(fastOut[0])) {
            System.out.println("MISMATCH: fast and reference kernels differ at d=" + d);
            System.exit(1);
          }
        }
      }
    }
  }

  /** One line: the median and the best (shortest) time, and the throughput at each. */
  static void print(String name, int d, int n, long bytes, double[] sortedMs) {
    double median = sortedMs[sortedMs.length / 2];
    double best = sortedMs[0];
    System.out.printf(
        Locale.ROOT,
        "%-20s d=%4d N=%10d bytes=%11d median_ms=%9.2f best_ms=%9.2f GB/s=%6.2f best_GB/s=%6.2f%n",
        name,
        d,
        n,
        bytes,
        median,
        best,
        bytes / median / 1e6,
        bytes / best / 1e6);
  }

  static Partition data(int n, int d) {
    float[] x = new float[n * d];
    float[] y = new float[n];
    // SplittableRandom streams per block so that filling 400 MB takes a moment only
    java.util.stream.IntStream.range(0, (x.length + 65535) / 65536)
        .parallel()
        .forEach(
            b -> {
              SplittableRandom r = new SplittableRandom(b);
              int end = Math.min(x.length, (b + 1) * 65536);
              for (int k = b * 65536; k < end; k++) {
                x[k] = (float) r.nextGaussian();
              }
            });
    SplittableRandom r = new SplittableRandom(-1);
    for (int i = 0; i < n; i++) {
      y[i] = (float) r.nextGaussian();
    }
    return new Partition(n, d, x, y);
  }

  /** Wall times in ms of reps runs after one warm-up run, sorted. */
  static double[] times(int reps, Runnable r) {
    r.run();
    double[] t = new double[reps];
    for (int k = 0; k < reps; k++) {
      long t0 = System.nanoTime();
      r.run();
      t[k] = (System.nanoTime() - t0) / 1e6;
    }
    Arrays.sort(t);
    return t;
  }
}
