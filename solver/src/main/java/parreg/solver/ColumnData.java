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
}
