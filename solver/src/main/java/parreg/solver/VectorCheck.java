package parreg.solver;

import java.util.SplittableRandom;

/**
 * Runs {@link VectorTiles} against {@link ScalarTiles} on a small tile of awkward values
 * (subnormals, signed zeros, large and tiny magnitudes, an odd column count) for both tile rules;
 * false means the SIMD path must not be used on this JVM.
 */
final class VectorCheck {
  private VectorCheck() {}

  static boolean agrees() {
    int d = 9;
    int m = GramOrder.columns(d);
    int len = 37;
    SplittableRandom rnd = new SplittableRandom(20240531L);
    double[] x = new double[len * d];
    double[] y = new double[len];
    for (int i = 0; i < x.length; i++) {
      x[i] = awkward(rnd, i);
    }
    for (int i = 0; i < len; i++) {
      y[i] = awkward(rnd, i + 3);
    }
    float[] x32 = new float[x.length];
    float[] y32 = new float[len];
    for (int i = 0; i < x.length; i++) {
      x32[i] = (float) x[i];
    }
    for (int i = 0; i < len; i++) {
      y32[i] = (float) y[i];
    }
    return agrees(ColumnData.of(x32, y32, len, d), m, len)
        && agrees(ColumnData.of(x, y, len, d), m, len);
  }

  private static boolean agrees(ColumnData data, int m, int len) {
    int entries = GramOrder.entries(m);
    int lanes = VectorTiles.lanes();
    int blocks = VectorTiles.blocks(m);
    double[] vbuf = new double[GramOrder.TILE * lanes * blocks];
    double[] sbuf = new double[GramOrder.TILE * m];
    data.initBlocks(vbuf, lanes, blocks);
    data.packBlocks(0, len, vbuf, lanes);
    data.pack(0, len, sbuf, m);
    double[] vh = new double[entries];
    double[] vl = new double[entries];
    double[] sh = new double[entries];
    double[] sl = new double[entries];
    if (data.dataBits() == 32) {
      VectorTiles.binary32(vbuf, len, m, 0, m, 0, vh);
      ScalarTiles.binary32(sbuf, m, len, m, 0, m, 0, sh);
    } else {
      VectorTiles.binary64(vbuf, len, m, 0, m, 0, vh, vl);
      ScalarTiles.binary64(sbuf, m, len, m, 0, m, 0, sh, sl);
    }
    for (int e = 0; e < entries; e++) {
      if (Double.doubleToRawLongBits(vh[e]) != Double.doubleToRawLongBits(sh[e])
          || Double.doubleToRawLongBits(vl[e]) != Double.doubleToRawLongBits(sl[e])) {
        return false;
      }
    }
    return true;
  }

  private static double awkward(SplittableRandom rnd, int i) {
    return switch (i % 7) {
      case 0 -> Double.MIN_VALUE * (1 + rnd.nextInt(1000));
      case 1 -> -0.0;
      case 2 -> rnd.nextDouble(-1e30, 1e30);
      case 3 -> 0x1p-1000 * rnd.nextDouble(-1, 1);
      case 4 -> rnd.nextDouble(-3, 3);
      case 5 -> 1e-300 * rnd.nextDouble();
      default -> rnd.nextGaussian() * 1e8;
    };
  }
}
