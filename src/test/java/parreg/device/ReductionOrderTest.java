package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The tile tree of {@link ReductionOrder} splits at aligned power-of-two tile boundaries: summing
 * chunks of {@code 2^k} tiles separately and combining the chunk sums pairwise gives the bits of
 * the whole sum, for every k and every length; so the fast kernel's result cannot depend on its
 * thread count or chunking.
 */
class ReductionOrderTest {

  static double[] values(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      // wide exponent range so that the order of additions matters
      v[i] = Math.scalb(rnd.nextDouble(-1, 1), rnd.nextInt(-40, 40));
    }
    return v;
  }

  /** Tile sums by the documented lane order, chunks of chunkTiles tiles, then the chunk tree. */
  static double chunked(double[] v, int chunkTiles) {
    int n = v.length;
    int tiles = ReductionOrder.tiles(n);
    int chunks = (tiles + chunkTiles - 1) / chunkTiles;
    double[] chunkSums = new double[chunks];
    for (int c = 0; c < chunks; c++) {
      int t0 = c * chunkTiles;
      int t1 = Math.min(t0 + chunkTiles, tiles);
      double[] tileSums = new double[t1 - t0];
      for (int t = t0; t < t1; t++) {
        int begin = t * ReductionOrder.TILE;
        int len = Math.min(ReductionOrder.TILE, n - begin);
        tileSums[t - t0] = ReductionOrder.sum(len, i -> v[begin + i]);
      }
      chunkSums[c] = ReductionOrder.pairwise(tileSums, t1 - t0);
    }
    return ReductionOrder.pairwise(chunkSums, chunks);
  }

  @Test
  void alignedPowerOfTwoChunksAreSubtrees() {
    int[] lengths = {
      1, 1024, 1025, 3 * 1024, 5 * 1024 + 1, 7 * 1024 - 3, 100 * 1024 + 17, 333 * 1024 + 999
    };
    for (int n : lengths) {
      double[] v = values(n, n);
      long whole = Double.doubleToRawLongBits(ReductionOrder.sum(n, i -> v[i]));
      for (int chunk = 1; chunk <= 1024; chunk *= 2) {
        assertEquals(
            whole, Double.doubleToRawLongBits(chunked(v, chunk)), "n=" + n + " chunk=" + chunk);
      }
    }
  }

  @Test
  void fastKernelBitsDoNotDependOnThreadsOrChunking() {
    int n = 300 * 1024 + 77;
    Partition p = FastCpuKernelTest.random(n, 2, 42);
    double[] w = FastCpuKernelTest.params(2, true, 43);
    LocalSums ref = ReferenceKernel.compute(p, 0, n, w, true);
    for (int threads : new int[] {1, 2, 3, 8}) {
      try (FastCpuKernel k = new FastCpuKernel(threads)) {
        FastCpuKernelTest.assertSame(
            ref, k.compute(p, 0, n, w, true), "default chunking, threads=" + threads);
        for (int chunk = 1; chunk <= 512; chunk *= 2) {
          FastCpuKernelTest.assertSame(
              ref, k.compute(p, 0, n, w, true, chunk), "threads=" + threads + " chunk=" + chunk);
        }
      }
    }
  }
}
