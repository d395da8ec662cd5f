package parreg.solver;

/**
 * The fixed operation order of the statistics pass, version {@value #VERSION}: what every backend
 * (this package's CPU pass, a CUDA kernel) computes, bit for bit. It depends only on the
 * partition's values and shape, never on the backend, the thread count or a launch geometry.
 *
 * <p><b>Columns.</b> A partition of {@code n} samples and {@code d} features has {@code m = d + 2}
 * columns {@code z_0 .. z_{m-1}}: the features {@code z_j = x_j} ({@code j < d}), the label {@code
 * z_d = y} ({@link #label}) and the constant {@code z_{d+1} = 1} ({@link #one}). The statistics are
 * the upper triangle {@code S_jk = sum_i z_j[i] z_k[i]}, {@code j <= k < m}, packed row by row
 * ({@link #index}); so they hold the Gram matrix of {@code [x, y]}, the column sums {@code
 * S_{j,one}} and the mass {@code S_{one,one} = n}. Every value is read as binary64 (binary32 widens
 * exactly).
 *
 * <p><b>Tiles.</b> Tile {@code t} holds samples {@code [T t, min(T t + T, n))}, {@code T =} {@value
 * #TILE}. Inside a tile each entry is accumulated over the tile's samples in index order, starting
 * from {@code +0.0}:
 *
 * <ul>
 *   <li><i>binary32 data</i> (features and labels binary32): {@code acc = acc + z_j[i] * z_k[i]} in
 *       binary64. The product of two binary32 values is exact in binary64, so only the addition
 *       rounds, and a fused multiply-add gives the same bits. The tile value is {@code (acc,
 *       +0.0)}.
 *   <li><i>binary64 data</i> (anything else): {@code p = z_j[i] * z_k[i]}, {@code e = fma(z_j[i],
 *       z_k[i], -p)} (exact), then {@code acc = acc + (p, e)} in double-double ({@link
 *       DoubleDouble#add}); the tile value is {@code acc}.
 * </ul>
 *
 * <p><b>Tree.</b> The tile values of each entry are combined by {@link #pairwise} in double-double:
 * level by level, element {@code i} of the next level is {@code a[2i] + a[2i+1]} ({@link
 * DoubleDouble#add}, left operand first), an odd last element carried up unchanged. Any aligned run
 * of {@code 2^k} tiles is a complete subtree, and the last, partial run is reduced by the same
 * rule, so a backend may reduce aligned blocks of tiles independently and combine the blocks'
 * values by the same tree; {@link GramPass} does.
 *
 * <p><b>Participants.</b> Statistics of several participants are combined in participant-id order,
 * {@code ((S_0 + S_1) + S_2) + ...} entry by entry in double-double, masses added as unsigned
 * 64-bit integers ({@link GramStats#merge}).
 */
public final class GramOrder {
  /** The order's versioned name, as the run contract carries it. */
  public static final String VERSION = "gram-tile256-dd/v1";

  /** Samples per tile. */
  public static final int TILE = 256;

  private GramOrder() {}

  /** Columns of a partition with {@code d} features: the features, the label, the constant 1. */
  public static int columns(int d) {
    return d + 2;
  }

  /** The label's column. */
  public static int label(int d) {
    return d;
  }

  /** The constant column's. */
  public static int one(int d) {
    return d + 1;
  }

  /** Entries of the packed upper triangle of {@code m} columns. */
  public static int entries(int m) {
    long e = (long) m * (m + 1) / 2;
    if (e > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("too many columns for the statistics: " + m);
    }
    return (int) e;
  }

  /** Packed index of entry {@code (j, k)}, {@code j <= k < m}: row by row. */
  public static int index(int j, int k, int m) {
    return (int) ((long) j * m - (long) j * (j - 1) / 2 + (k - j));
  }

  /** Tiles of {@code n} samples. */
  public static int tiles(long n) {
    return (int) ((n + TILE - 1) / TILE);
  }

  /**
   * The tree over {@code count} values: value {@code t} of entry {@code e} is {@code (hi[t * stride
   * + e], lo[t * stride + e])}. Runs level by level in place over {@code entries} entries from
   * {@code e0}; the result is left in value 0. A count of 0 leaves (+0.0, +0.0) there.
   */
  static void pairwise(double[] hi, double[] lo, int count, int stride, int e0, int entries) {
    if (count == 0) {
      for (int e = e0; e < e0 + entries; e++) {
        hi[e] = 0.0;
        lo[e] = 0.0;
      }
      return;
    }
    double[] out = new double[2];
    int c = count;
    while (c > 1) {
      int half = c >>> 1;
      for (int i = 0; i < half; i++) {
        int a = 2 * i * stride;
        int b = a + stride;
        int z = i * stride;
        for (int e = e0; e < e0 + entries; e++) {
          DoubleDouble.add(hi[a + e], lo[a + e], hi[b + e], lo[b + e], out);
          hi[z + e] = out[0];
          lo[z + e] = out[1];
        }
      }
      if ((c & 1) != 0) {
        System.arraycopy(hi, (c - 1) * stride + e0, hi, half * stride + e0, entries);
        System.arraycopy(lo, (c - 1) * stride + e0, lo, half * stride + e0, entries);
      }
      c = half + (c & 1);
    }
  }
}
