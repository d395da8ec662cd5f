package parreg.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Double-double operations against exact decimal arithmetic, within their published bounds. */
class DoubleDoubleTest {
  private static final double U2 = 0x1p-106;
  private static final MathContext MC = new MathContext(80);

  private static double[] random(SplittableRandom r) {
    double h = r.nextGaussian() * Math.pow(2, r.nextInt(-40, 40));
    double l = h * 0x1p-53 * r.nextDouble(-1, 1);
    double s = h + l;
    return new double[] {s, DoubleDouble.twoSumErr(h, l, s)};
  }

  private static BigDecimal exact(double[] v) {
    return new BigDecimal(v[0]).add(new BigDecimal(v[1]));
  }

  private static double relErr(double[] got, BigDecimal want) {
    if (want.signum() == 0) {
      return exact(got).abs().doubleValue();
    }
    return exact(got).subtract(want).abs().divide(want.abs(), MC).doubleValue();
  }

  @Test
  void operationsMeetTheirBounds() {
    SplittableRandom r = new SplittableRandom(31);
    double[] out = new double[2];
    for (int i = 0; i < 20_000; i++) {
      double[] x = random(r);
      double[] y = random(r);
      if (i % 3 == 0) {
        y[0] = -x[0] * (1 + 0x1p-30 * r.nextDouble()); // heavy cancellation
        y[1] = 0;
      }
      DoubleDouble.add(x[0], x[1], y[0], y[1], out);
      BigDecimal sum = exact(x).add(exact(y));
      assertTrue(relErr(out, sum) <= 3 * U2 + 0x1p-150, "add");
      assertEquals(out[0], out[0] + out[1], "normalised");
      DoubleDouble.mul(x[0], x[1], y[0], y[1], out);
      assertTrue(relErr(out, exact(x).multiply(exact(y))) <= 5 * U2, "mul");
      DoubleDouble.div(x[0], x[1], y[0], y[1], out);
      assertTrue(relErr(out, exact(x).divide(exact(y), MC)) <= 15 * U2, "div");
      double[] a = {Math.abs(x[0]), Math.signum(x[0]) * x[1]};
      DoubleDouble.sqrt(a[0], a[1], out);
      assertTrue(relErr(out, exact(a).sqrt(MC)) <= 4 * U2, "sqrt");
    }
  }

  @Test
  void twoSumAndTwoProdAreExact() {
    SplittableRandom r = new SplittableRandom(32);
    for (int i = 0; i < 10_000; i++) {
      double a = r.nextGaussian() * Math.pow(2, r.nextInt(-60, 60));
      double b = r.nextGaussian() * Math.pow(2, r.nextInt(-60, 60));
      double s = a + b;
      assertEquals(
          0,
          new BigDecimal(s)
              .add(new BigDecimal(DoubleDouble.twoSumErr(a, b, s)))
              .compareTo(new BigDecimal(a).add(new BigDecimal(b))));
      double p = a * b;
      assertEquals(
          0,
          new BigDecimal(p)
              .add(new BigDecimal(DoubleDouble.twoProdErr(a, b, p)))
              .compareTo(new BigDecimal(a).multiply(new BigDecimal(b))));
    }
  }

  @Test
  void theSimdUpdateHasThePlainLoopsBits() {
    SplittableRandom r = new SplittableRandom(33);
    for (int len : new int[] {1, 3, 4, 7, 8, 9, 31, 64, 100}) {
      double[] ch = new double[len + 2];
      double[] cl = new double[len + 2];
      double[] sh = new double[len + 1];
      double[] sl = new double[len + 1];
      for (int i = 0; i < ch.length; i++) {
        double[] v = random(r);
        ch[i] = v[0];
        cl[i] = v[1];
      }
      for (int i = 0; i < sh.length; i++) {
        double[] v = random(r);
        sh[i] = v[0];
        sl[i] = v[1];
      }
      double[] y = random(r);
      double[] vh = sh.clone();
      double[] vl = sl.clone();
      DdLanes.subtractScaled(sh, sl, 1, ch, cl, 2, len, y[0], y[1], false);
      DdLanes.subtractScaled(vh, vl, 1, ch, cl, 2, len, y[0], y[1], GramPass.VECTOR_AVAILABLE);
      for (int i = 0; i < sh.length; i++) {
        assertEquals(Double.doubleToRawLongBits(sh[i]), Double.doubleToRawLongBits(vh[i]));
        assertEquals(Double.doubleToRawLongBits(sl[i]), Double.doubleToRawLongBits(vl[i]));
      }
    }
  }
}
