package parreg.solver;

/**
 * The tile rule of {@link GramOrder} in plain Java loops: the tile values of the entries of rows
 * {@code [r0, r1)} from a tile packed sample-major by {@link ColumnData#pack}. Entry {@code (j, k)}
 * goes to {@code index(j, k, m) - base}. Each entry keeps its own accumulator over the samples in
 * index order; several entries are interleaved only to keep the CPU's pipelines busy. The fallback
 * of {@link VectorTiles}, with the same bits.
 */
final class ScalarTiles {
  private ScalarTiles() {}

  /** The binary32 rule: {@code acc = acc + a * b} in binary64 (the product is exact). */
  static void binary32(
      double[] buf, int stride, int len, int m, int r0, int r1, int base, double[] th) {
    for (int j = r0; j < r1; j++) {
      int e = GramOrder.index(j, j, m) - base;
      int k = j;
      for (; k + 4 <= m; k += 4, e += 4) {
        double a0 = +0.0;
        double a1 = +0.0;
        double a2 = +0.0;
        double a3 = +0.0;
        for (int i = 0; i < len; i++) {
          int row = i * stride;
          double v = buf[row + j];
          a0 = a0 + v * buf[row + k];
          a1 = a1 + v * buf[row + k + 1];
          a2 = a2 + v * buf[row + k + 2];
          a3 = a3 + v * buf[row + k + 3];
        }
        th[e] = a0;
        th[e + 1] = a1;
        th[e + 2] = a2;
        th[e + 3] = a3;
      }
      for (; k < m; k++, e++) {
        double a = +0.0;
        for (int i = 0; i < len; i++) {
          int row = i * stride;
          a = a + buf[row + j] * buf[row + k];
        }
        th[e] = a;
      }
    }
  }

  /** The binary64 rule: {@code acc = acc + (p, e)} in double-double, {@code (p, e)} = TwoProd. */
  static void binary64(
      double[] buf,
      int stride,
      int len,
      int m,
      int r0,
      int r1,
      int base,
      double[] th,
      double[] tl) {
    double[] out = new double[2];
    for (int j = r0; j < r1; j++) {
      int e = GramOrder.index(j, j, m) - base;
      for (int k = j; k < m; k++, e++) {
        double h = +0.0;
        double l = +0.0;
        for (int i = 0; i < len; i++) {
          int row = i * stride;
          double a = buf[row + j];
          double b = buf[row + k];
          double p = a * b;
          DoubleDouble.add(h, l, p, Math.fma(a, b, -p), out);
          h = out[0];
          l = out[1];
        }
        th[e] = h;
        tl[e] = l;
      }
    }
  }

  /** {@code (bh[e], bl[e]) = (ah[e], al[e]) + (bh[e], bl[e])} for {@code e < count}. */
  static void addInto(double[] ah, double[] al, double[] bh, double[] bl, int count) {
    double[] out = new double[2];
    for (int e = 0; e < count; e++) {
      DoubleDouble.add(ah[e], al[e], bh[e], bl[e], out);
      bh[e] = out[0];
      bl[e] = out[1];
    }
  }
}
