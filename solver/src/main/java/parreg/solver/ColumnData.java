package parreg.solver;

/**
 * A partition as the statistics pass reads it: {@code n} samples of {@code d} features stored
 * feature-major (feature {@code j} of sample {@code i} is {@code x[j * n + i]}) and {@code n}
 * labels, each binary32 or binary64. The arrays are not copied. Binary32 features with binary32
 * labels select the binary32 tile rule of {@link GramOrder}; any binary64 array selects the
 * binary64 rule.
 */
public final class ColumnData {
  private final int n;
  private final int d;
  private final float[] x32;
  private final double[] x64;
  private final float[] y32;
  private final double[] y64;

  private ColumnData(int n, int d, float[] x32, double[] x64, float[] y32, double[] y64) {
    if (n < 0 || d < 0) {
      throw new IllegalArgumentException("negative shape n=" + n + ", d=" + d);
    }
    int xl = x32 != null ? x32.length : x64.length;
    int yl = y32 != null ? y32.length : y64.length;
    if ((long) n * d != xl || yl != n) {
      throw new IllegalArgumentException(
          "arrays do not match n=" + n + ", d=" + d + ": x has " + xl + ", y has " + yl);
    }
    this.n = n;
    this.d = d;
    this.x32 = x32;
    this.x64 = x64;
    this.y32 = y32;
    this.y64 = y64;
  }

  public static ColumnData of(float[] x, float[] y, int n, int d) {
    return new ColumnData(n, d, x, null, y, null);
  }

  public static ColumnData of(double[] x, double[] y, int n, int d) {
    return new ColumnData(n, d, null, x, null, y);
  }

  public static ColumnData of(float[] x, double[] y, int n, int d) {
    return new ColumnData(n, d, x, null, null, y);
  }

  public static ColumnData of(double[] x, float[] y, int n, int d) {
    return new ColumnData(n, d, null, x, y, null);
  }

  public int samples() {
    return n;
  }

  public int features() {
    return d;
  }

  /** 32 where features and labels are binary32 (products exact in binary64), else 64. */
  public int dataBits() {
    return x32 != null && y32 != null ? 32 : 64;
  }

  /** Column {@code c} of sample {@code i} as binary64: a feature, the label, or the constant 1. */
  public double value(int c, int i) {
    if (c < d) {
      return x32 != null ? x32[c * n + i] : x64[c * n + i];
    }
    if (c == d) {
      return y32 != null ? y32[i] : y64[i];
    }
    return 1.0;
  }

  /**
   * Writes samples {@code [i0, i0 + len)} sample-major into {@code buf}: column {@code c} of the
   * {@code r}-th sample at {@code buf[r * stride + c]}, for the {@code m = d + 2} columns, and 0 in
   * columns {@code m .. stride - 1}. Rows from {@code len} on are left as they are: the tile rules
   * read only the tile's samples.
   */
  void pack(int i0, int len, double[] buf, int stride) {
    // 16 samples at a time, so that the rows being written stay in the L1 cache across columns
    for (int s0 = 0; s0 < len; s0 += 16) {
      int sl = Math.min(16, len - s0);
      for (int j = 0; j < d; j++) {
        int src = j * n + i0 + s0;
        int dst = s0 * stride + j;
        if (x32 != null) {
          for (int r = 0; r < sl; r++) {
            buf[dst + r * stride] = x32[src + r];
          }
        } else {
          for (int r = 0; r < sl; r++) {
            buf[dst + r * stride] = x64[src + r];
          }
        }
      }
      for (int r = s0; r < s0 + sl; r++) {
        int row = r * stride;
        buf[row + d] = y32 != null ? y32[i0 + r] : y64[i0 + r];
        buf[row + d + 1] = 1.0;
        for (int c = d + 2; c < stride; c++) {
          buf[row + c] = 0.0;
        }
      }
    }
  }

  /**
   * Prepares a buffer for {@link #packBlocks}: the constant column's 1s and the zeros of the
   * columns past {@code m = d + 2}, for all {@code TILE} rows of {@code blocks} blocks of {@code
   * lanes} columns. These never change from tile to tile.
   */
  void initBlocks(double[] buf, int lanes, int blocks) {
    java.util.Arrays.fill(buf, 0, GramOrder.TILE * lanes * blocks, 0.0);
    int c = d + 1;
    int o = (c / lanes) * GramOrder.TILE * lanes + c % lanes;
    for (int r = 0; r < GramOrder.TILE; r++) {
      buf[o + r * lanes] = 1.0;
    }
  }

  /**
   * Writes the features and labels of samples {@code [i0, i0 + len)} in column blocks of {@code
   * lanes} columns for {@link VectorTiles} into a buffer that {@link #initBlocks} prepared: column
   * {@code c} of the {@code r}-th sample at {@code (c / lanes) * TILE * lanes + r * lanes + c %
   * lanes}. A block of four features is written sequentially, sample after sample, from four column
   * streams.
   */
  void packBlocks(int i0, int len, double[] buf, int lanes) {
    int tile = GramOrder.TILE * lanes;
    int c = 0;
    if (lanes == 4) {
      for (; c + 4 <= d; c += 4) {
        int o = (c / 4) * tile;
        int s0 = c * n + i0;
        int s1 = s0 + n;
        int s2 = s1 + n;
        int s3 = s2 + n;
        if (x32 != null) {
          for (int r = 0; r < len; r++) {
            int q = o + 4 * r;
            buf[q] = x32[s0 + r];
            buf[q + 1] = x32[s1 + r];
            buf[q + 2] = x32[s2 + r];
            buf[q + 3] = x32[s3 + r];
          }
        } else {
          for (int r = 0; r < len; r++) {
            int q = o + 4 * r;
            buf[q] = x64[s0 + r];
            buf[q + 1] = x64[s1 + r];
            buf[q + 2] = x64[s2 + r];
            buf[q + 3] = x64[s3 + r];
          }
        }
      }
    }
    for (; c <= d; c++) { // remaining features, then the label
      int o = (c / lanes) * tile + c % lanes;
      if (c < d && x32 != null) {
        for (int r = 0, s = c * n + i0; r < len; r++) {
          buf[o + r * lanes] = x32[s + r];
        }
      } else if (c < d) {
        for (int r = 0, s = c * n + i0; r < len; r++) {
          buf[o + r * lanes] = x64[s + r];
        }
      } else if (y32 != null) {
        for (int r = 0; r < len; r++) {
          buf[o + r * lanes] = y32[i0 + r];
        }
      } else {
        for (int r = 0; r < len; r++) {
          buf[o + r * lanes] = y64[i0 + r];
        }
      }
    }
  }
}
