package parreg.device;

import java.util.function.IntToDoubleFunction;

/**
 * The fixed summation order of SPEC section 2, step 3, version {@value #VERSION}. It depends only
 * on the number of values summed, never on the backend, the device, the launch geometry or the
 * thread count, so every backend that follows it produces the same bits.
 *
 * <p>For values {@code v_0 .. v_{n-1}} (one coordinate of the per-sample gradients, widened to
 * binary64, in batch order):
 *
 * <ol>
 *   <li><b>Tiles.</b> Tile {@code t} holds samples {@code [1024 t, min(1024 t + 1024, n))}.
 *   <li><b>Lanes.</b> Inside a tile, lane {@code l} (0..31) starts at {@code +0.0} and adds the
 *       samples {@code 1024 t + l, 1024 t + l + 32, ...} of that tile in index order, one binary64
 *       addition each. A lane with no sample stays {@code +0.0}.
 *   <li><b>Lanes to tile.</b> The 32 lane sums are combined by {@link #pairwise}: level by level,
 *       element {@code i} of the next level is {@code a[2i] + a[2i+1]}. (On a GPU this is the
 *       butterfly of warp shuffles with xor 1, 2, 4, 8, 16.)
 *   <li><b>Tiles to batch.</b> The tile sums are combined by {@link #pairwise} too; when a level
 *       has an odd count its last element passes to the next level unchanged.
 * </ol>
 *
 * <p>Any aligned run of {@code 2^k} tiles is a complete subtree of step 4, so a GPU can reduce
 * blocks of tiles independently and finish with a short second pass, and a CPU can split the tiles
 * among threads at power-of-two boundaries; both give these bits.
 */
public final class ReductionOrder {
  public static final String VERSION = "tile1024-lane32-pairwise/v1";
  public static final int TILE = 1024;
  public static final int LANES = 32;

  private ReductionOrder() {}

  /** Number of tiles for n values. */
  public static int tiles(int n) {
    return (n + TILE - 1) / TILE;
  }

  /** The ordered sum of {@code value(0..n-1)}; the reference every backend is checked against. */
  public static double sum(int n, IntToDoubleFunction value) {
    int tiles = tiles(n);
    double[] tileSums = new double[Math.max(tiles, 1)];
    double[] lanes = new double[LANES];
    for (int t = 0; t < tiles; t++) {
      int begin = t * TILE;
      int end = Math.min(begin + TILE, n);
      for (int l = 0; l < LANES; l++) {
        double acc = +0.0;
        for (int i = begin + l; i < end; i += LANES) {
          acc = acc + value.applyAsDouble(i);
        }
        lanes[l] = acc;
      }
      tileSums[t] = pairwise(lanes, LANES);
    }
    return tiles == 0 ? +0.0 : pairwise(tileSums, tiles);
  }

  /**
   * Level-by-level pairwise tree over {@code a[0..m)}, in place: {@code a[i] = a[2i] + a[2i+1]}, an
   * odd last element carried up unchanged, until one value remains. Returns it.
   */
  public static double pairwise(double[] a, int m) {
    if (m <= 0) {
      return +0.0;
    }
    while (m > 1) {
      int half = m >>> 1;
      for (int i = 0; i < half; i++) {
        a[i] = a[2 * i] + a[2 * i + 1];
      }
      if ((m & 1) != 0) {
        a[half] = a[m - 1];
      }
      m = half + (m & 1);
    }
    return a[0];
  }
}
