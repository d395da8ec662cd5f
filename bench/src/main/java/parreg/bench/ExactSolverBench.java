package parreg.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import parreg.solver.ColumnData;
import parreg.solver.ExactSolver;
import parreg.solver.GramPass;
import parreg.solver.GramStats;
import parreg.solver.LeastSquaresFit;
import parreg.solver.SolverOptions;

/**
 * Time of the exact solver ({@value ExactSolver#NAME}) from statistics to parameters, and of the
 * training summary, at several d (the statistics of {@code 4d} random binary32 samples, computed
 * once). Checks that every repetition gave the same bits.
 *
 * <p>Usage: {@code ExactSolverBench [--d 16,64,256,1024] [--reps 3] [--threads 2]}.
 */
public final class ExactSolverBench {
  private ExactSolverBench() {}

  public static void main(String[] args) {
    int[] ds = {16, 64, 256, 1024};
    int reps = 3;
    int threads = 2;
    for (int a = 0; a < args.length; a++) {
      switch (args[a]) {
        case "--d" ->
            ds = Arrays.stream(args[++a].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--reps" -> reps = Integer.parseInt(args[++a]);
        case "--threads" -> threads = Integer.parseInt(args[++a]);
        default -> throw new IllegalArgumentException("unknown argument " + args[a]);
      }
    }
    ExactSolver solver = new ExactSolver(threads);
    for (int d : ds) {
      int n = 4 * d;
      SplittableRandom r = new SplittableRandom(d);
      float[] x = new float[n * d];
      float[] y = new float[n];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) r.nextGaussian();
      }
      for (int i = 0; i < n; i++) {
        y[i] = (float) r.nextGaussian();
      }
      GramStats stats = GramPass.compute(ColumnData.of(x, y, n, d), threads);
      double[] solve = new double[reps];
      double[] summary = new double[reps];
      LeastSquaresFit first = null;
      for (int k = 0; k < reps; k++) {
        long t0 = System.nanoTime();
        LeastSquaresFit fit = solver.fit(stats, SolverOptions.withBias());
        long t1 = System.nanoTime();
        fit.summary(null);
        long t2 = System.nanoTime();
        if (first == null) {
          first = fit;
        } else if (!first.solution().sameBits(fit.solution())) {
          throw new IllegalStateException("repetition " + k + " gave other bits");
        }
        solve[k] = (t1 - t0) / 1e6;
        summary[k] = (t2 - t1) / 1e6;
      }
      Arrays.sort(solve);
      Arrays.sort(summary);
      System.out.printf(
          Locale.ROOT,
          "exact-solver d=%d threads=%d: solve best %.1f ms median %.1f ms, summary best %.1f ms,"
              + " condition %.2e%n",
          d,
          threads,
          solve[0],
          solve[reps / 2],
          summary[0],
          first.solution().condition());
    }
  }
}
