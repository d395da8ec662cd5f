package parreg.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pass has the reference's bits at every thread count, SIMD or not, and merges as stated. */
class GramPassTest {
  private static final int[][] SHAPES = {
    {0, 1},
    {1, 1},
    {255, 3},
    {256, 2},
    {257, 5},
    {1001, 7},
    {5003, 13},
    {3001, 31},
    {2049, 40},
    {70001, 1},
    {9000, 3}
  };

  static ColumnData data(int n, int d, boolean binary32, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[n * d];
    double[] y = new double[n];
    for (int j = 0; j < d; j++) {
      double scale = Math.pow(10, r.nextInt(-3, 4));
      double shift = r.nextBoolean() ? 0 : scale * r.nextInt(-50, 50);
      for (int i = 0; i < n; i++) {
        x[j * n + i] = shift + scale * r.nextGaussian();
      }
    }
    for (int i = 0; i < n; i++) {
      y[i] = 3 * r.nextGaussian() + (d > 0 ? x[i] : 0);
    }
    if (!binary32) {
      return ColumnData.of(x, y, n, d);
    }
    float[] x32 = new float[x.length];
    float[] y32 = new float[n];
    for (int i = 0; i < x.length; i++) {
      x32[i] = (float) x[i];
    }
    for (int i = 0; i < n; i++) {
      y32[i] = (float) y[i];
    }
    return ColumnData.of(x32, y32, n, d);
  }

  @Test
  void everyThreadCountAndPathHasTheReferenceBits() {
    for (boolean binary32 : new boolean[] {true, false}) {
      for (int[] s : SHAPES) {
        ColumnData data = data(s[0], s[1], binary32, 31L * s[0] + s[1]);
        GramStats ref = ReferenceGramPass.compute(data);
        for (int threads : new int[] {1, 2, 3, 7}) {
          String what = "n=" + s[0] + " d=" + s[1] + " bits=" + data.dataBits() + " t=" + threads;
          assertTrue(ref.sameBits(GramPass.compute(data, threads, false)), "scalar " + what);
          if (GramPass.VECTOR_AVAILABLE) {
            assertTrue(ref.sameBits(GramPass.compute(data, threads, true)), "simd " + what);
          }
          // panels of a few rows each, as large d has them
          boolean v = GramPass.VECTOR_AVAILABLE && threads % 2 == 1;
          assertTrue(ref.sameBits(GramPass.compute(data, threads, v, 40)), "panels " + what);
        }
      }
    }
  }

  @Test
  void theSimdPathRunsHere() {
    // surefire starts the JVM with the module; the parity above must have covered both paths
    assertTrue(GramPass.VECTOR_AVAILABLE, "jdk.incubator.vector lanes agree with the plain loops");
  }

  @Test
  void mixedPrecisionInputsTakeTheBinary64Rule() {
    float[] x = {1.5f, -2f, 3f};
    double[] y = {0.1, 0.2, 0.3};
    ColumnData data = ColumnData.of(x, y, 3, 1);
    assertEquals(64, data.dataBits());
    GramStats s = GramPass.compute(data, 2);
    assertTrue(s.sameBits(ReferenceGramPass.compute(data)));
    assertEquals(64, s.dataBits());
  }

  @Test
  void smallIntegersGiveExactSumsInAnyOrder() {
    // every partial sum is an integer below 2^53: no rounding, so the statistics are the exact
    // sums, and permuting the samples across tiles leaves every bit as it was
    int n = 3000;
    int d = 4;
    SplittableRandom r = new SplittableRandom(7);
    double[] x = new double[n * d];
    double[] y = new double[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextInt(-1000, 1000);
    }
    for (int i = 0; i < n; i++) {
      y[i] = r.nextInt(-1000, 1000);
    }
    GramStats s = GramPass.compute(ColumnData.of(x, y, n, d), 2);
    int m = GramOrder.columns(d);
    for (int j = 0; j < m; j++) {
      for (int k = j; k < m; k++) {
        long exact = 0;
        for (int i = 0; i < n; i++) {
          exact += (long) (col(x, y, n, d, j, i) * col(x, y, n, d, k, i));
        }
        assertEquals((double) exact, s.hi(j, k), "entry " + j + "," + k);
        assertEquals(0.0, s.lo(j, k));
      }
    }
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int k = r.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[k];
      perm[k] = t;
    }
    double[] px = new double[n * d];
    double[] py = new double[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++) {
        px[j * n + i] = x[j * n + perm[i]];
      }
      py[i] = y[perm[i]];
    }
    assertTrue(s.sameBits(GramPass.compute(ColumnData.of(px, py, n, d), 3)));
  }

  private static double col(double[] x, double[] y, int n, int d, int c, int i) {
    return c < d ? x[c * n + i] : c == d ? y[i] : 1.0;
  }

  @Test
  void mergingEqualsOnePassWhenTheFirstPartFillsAnAlignedSubtree() {
    // merge(A, B) = pass(A ++ B) when |A| = T * 2^k and B has at most 2^k tiles: then A and B
    // are the two halves of the top of the tree. Other splits give other (equally exact) bits.
    for (boolean binary32 : new boolean[] {true, false}) {
      int d = 6;
      int na = GramOrder.TILE * 8;
      int nb = GramOrder.TILE * 5 + 17;
      ColumnData all = data(na + nb, d, binary32, 99);
      ColumnData a = slice(all, 0, na, binary32);
      ColumnData b = slice(all, na, nb, binary32);
      GramStats merged = GramStats.merge(GramPass.compute(a, 2), GramPass.compute(b, 2));
      assertTrue(merged.sameBits(GramPass.compute(all, 2)), "bits=" + all.dataBits());
      assertEquals(na + nb, merged.mass());
    }
  }

  @Test
  void mergeRefusesDifferentShapes() {
    GramStats a = GramPass.compute(data(10, 2, true, 1), 1);
    GramStats b = GramPass.compute(data(10, 3, true, 1), 1);
    GramStats c = GramPass.compute(data(10, 2, false, 1), 1);
    assertThrows(IllegalArgumentException.class, () -> GramStats.merge(a, b));
    assertThrows(IllegalArgumentException.class, () -> GramStats.merge(a, c));
  }

  static ColumnData slice(ColumnData all, int from, int len, boolean binary32) {
    int d = all.features();
    double[] x = new double[len * d];
    double[] y = new double[len];
    for (int i = 0; i < len; i++) {
      for (int j = 0; j < d; j++) {
        x[j * len + i] = all.value(j, from + i);
      }
      y[i] = all.value(d, from + i);
    }
    if (!binary32) {
      return ColumnData.of(x, y, len, d);
    }
    float[] x32 = new float[x.length];
    float[] y32 = new float[len];
    for (int i = 0; i < x.length; i++) {
      x32[i] = (float) x[i];
    }
    for (int i = 0; i < len; i++) {
      y32[i] = (float) y[i];
    }
    return ColumnData.of(x32, y32, len, d);
  }

  @Test
  void binary64EntriesAreWithinTheDocumentedBoundOfTheExactSums() {
    // |S - exact| <= 3 (T + log2 tiles) u^2 sum|z_j z_k|, u = 2^-53 (docs/SOLVER.md)
    int n = 4099;
    int d = 3;
    ColumnData data = data(n, d, false, 5);
    GramStats s = GramPass.compute(data, 2);
    int m = GramOrder.columns(d);
    double bound = 3 * (GramOrder.TILE + 5) * 0x1p-106;
    for (int j = 0; j < m; j++) {
      for (int k = j; k < m; k++) {
        java.math.BigDecimal exact = java.math.BigDecimal.ZERO;
        double abs = 0;
        for (int i = 0; i < n; i++) {
          double a = data.value(j, i);
          double b = data.value(k, i);
          exact = exact.add(new java.math.BigDecimal(a).multiply(new java.math.BigDecimal(b)));
          abs += Math.abs(a * b);
        }
        java.math.BigDecimal got =
            new java.math.BigDecimal(s.hi(j, k)).add(new java.math.BigDecimal(s.lo(j, k)));
        double err = got.subtract(exact).abs().doubleValue();
        assertTrue(err <= bound * abs, "entry " + j + "," + k + ": " + err / abs);
      }
    }
  }

  @Test
  void kryoWritesAndReadsTheSameBits() {
    GramStats s = GramPass.compute(data(700, 5, false, 3), 2);
    Kryo kryo = new Kryo();
    kryo.register(double[].class);
    kryo.register(GramStats.class);
    Output out = new Output(1 << 16, -1);
    kryo.writeObject(out, s);
    GramStats back = kryo.readObject(new Input(out.toBytes()), GramStats.class);
    assertTrue(s.sameBits(back));
    assertEquals(s.toString(), back.toString());
    assertTrue(s.toString().contains("0x"), "hex bits");
    assertEquals(BigInteger.valueOf(700).longValue(), back.mass());
  }
}
