package parreg.device;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD inner loops of {@link FastCpuKernel}, written with the incubating Vector API of JDK 17
 * ({@code jdk.incubator.vector}; the JVM needs {@code --add-modules jdk.incubator.vector}). Every
 * vector operation is lane-wise IEEE binary32/binary64 arithmetic with one rounding per operation
 * (no {@code fma} is used), and {@code F2D} is the exact widening, so each lane does exactly what
 * the scalar loops of {@link FastCpuKernel} and {@link ReferenceKernel} do.
 *
 * <p>HotSpot compiles these to AVX/AVX-512 instructions; without the module this class is never
 * loaded and the kernel runs its plain loops.
 */
final class VectorLanes {
  private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
  private static final VectorSpecies<Float> F16 = FloatVector.SPECIES_512;
  private static final VectorSpecies<Double> D8 = DoubleVector.SPECIES_512;

  private VectorLanes() {}

  /** True where the preferred vector shape is 512 bits, the shape these loops are written for. */
  static boolean nativeWidthIs512() {
    return FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512;
  }

  /**
   * Runs the vector loops on a small input with subnormal, signed-zero and large values and
   * compares them with scalar Java arithmetic; false means the vector path must not be used.
   */
  static boolean selfCheck() {
    float[] x = new float[96];
    float[] y = new float[32];
    for (int i = 0; i < x.length; i++) {
      x[i] =
          switch (i % 6) {
            case 0 -> Float.MIN_VALUE * (i + 1);
            case 1 -> -0f;
            case 2 -> 3.0e38f / (i + 1);
            case 3 -> 0x1p-126f * (i + 1);
            case 4 -> -1.5f * i;
            default -> 1e-20f * i;
          };
    }
    for (int i = 0; i < y.length; i++) {
      y[i] = i % 3 == 0 ? -0f : Float.MIN_NORMAL * i;
    }
    float[] w32 = {0.5f, 0x1p-100f, -3f};
    float[] r = new float[32];
    residuals(x, 32, 3, w32, true, 0x1p-140f, y, 0, 32, r);
    double[] acc = new double[32];
    accumulate(r, x, 32, 32, acc, 0);
    for (int i = 0; i < 32; i++) {
      float e = 0f;
      for (int j = 0; j < 3; j++) {
        e = e + w32[j] * x[j * 32 + i];
      }
      e = e + 0x1p-140f;
      e = e - y[i];
      if (Float.floatToRawIntBits(e) != Float.floatToRawIntBits(r[i])) {
        return false;
      }
      double g = 0.0 + (double) (e * x[32 + i]);
      if (Double.doubleToRawLongBits(g) != Double.doubleToRawLongBits(acc[i])) {
        return false;
      }
    }
    return true;
  }

  /** r[0..len) for samples s0..s0+len, 64 (then 16, then 1) samples at a time held in registers. */
  static void residuals(
      float[] x,
      int n,
      int d,
      float[] w32,
      boolean bias,
      float b32,
      float[] y,
      int s0,
      int len,
      float[] r) {
    int i = 0;
    for (; i + 64 <= len; i += 64) {
      FloatVector r0 = FloatVector.zero(F16);
      FloatVector r1 = FloatVector.zero(F16);
      FloatVector r2 = FloatVector.zero(F16);
      FloatVector r3 = FloatVector.zero(F16);
      int off = s0 + i;
      for (int j = 0; j < d; j++, off += n) {
        FloatVector wv = FloatVector.broadcast(F16, w32[j]);
        r0 = r0.add(wv.mul(FloatVector.fromArray(F16, x, off)));
        r1 = r1.add(wv.mul(FloatVector.fromArray(F16, x, off + 16)));
        r2 = r2.add(wv.mul(FloatVector.fromArray(F16, x, off + 32)));
        r3 = r3.add(wv.mul(FloatVector.fromArray(F16, x, off + 48)));
      }
      if (bias) {
        FloatVector bv = FloatVector.broadcast(F16, b32);
        r0 = r0.add(bv);
        r1 = r1.add(bv);
        r2 = r2.add(bv);
        r3 = r3.add(bv);
      }
      r0.sub(FloatVector.fromArray(F16, y, s0 + i)).intoArray(r, i);
      r1.sub(FloatVector.fromArray(F16, y, s0 + i + 16)).intoArray(r, i + 16);
      r2.sub(FloatVector.fromArray(F16, y, s0 + i + 32)).intoArray(r, i + 32);
      r3.sub(FloatVector.fromArray(F16, y, s0 + i + 48)).intoArray(r, i + 48);
    }
    for (; i + 16 <= len; i += 16) {
      FloatVector r0 = FloatVector.zero(F16);
      int off = s0 + i;
      for (int j = 0; j < d; j++, off += n) {
        r0 = r0.add(FloatVector.broadcast(F16, w32[j]).mul(FloatVector.fromArray(F16, x, off)));
      }
      if (bias) {
        r0 = r0.add(FloatVector.broadcast(F16, b32));
      }
      r0.sub(FloatVector.fromArray(F16, y, s0 + i)).intoArray(r, i);
    }
    for (; i < len; i++) {
      float acc = 0f;
      int off = s0 + i;
      for (int j = 0; j < d; j++, off += n) {
        acc = acc + w32[j] * x[off];
      }
      if (bias) {
        acc = acc + b32;
      }
      r[i] = acc - y[s0 + i];
    }
  }

  /** Lanes acc[a..a+32) += widened r[c+l] * x[off+c+l] for each full chunk c of 32 samples. */
  static void accumulate(float[] r, float[] x, int off, int full, double[] acc, int a) {
    DoubleVector a0 = DoubleVector.fromArray(D8, acc, a);
    DoubleVector a1 = DoubleVector.fromArray(D8, acc, a + 8);
    DoubleVector a2 = DoubleVector.fromArray(D8, acc, a + 16);
    DoubleVector a3 = DoubleVector.fromArray(D8, acc, a + 24);
    for (int c = 0; c < full; c += 32) {
      FloatVector g0 = FloatVector.fromArray(F8, r, c).mul(FloatVector.fromArray(F8, x, off + c));
      FloatVector g1 =
          FloatVector.fromArray(F8, r, c + 8).mul(FloatVector.fromArray(F8, x, off + c + 8));
      FloatVector g2 =
          FloatVector.fromArray(F8, r, c + 16).mul(FloatVector.fromArray(F8, x, off + c + 16));
      FloatVector g3 =
          FloatVector.fromArray(F8, r, c + 24).mul(FloatVector.fromArray(F8, x, off + c + 24));
      a0 = a0.add((DoubleVector) g0.convertShape(VectorOperators.F2D, D8, 0));
      a1 = a1.add((DoubleVector) g1.convertShape(VectorOperators.F2D, D8, 0));
      a2 = a2.add((DoubleVector) g2.convertShape(VectorOperators.F2D, D8, 0));
      a3 = a3.add((DoubleVector) g3.convertShape(VectorOperators.F2D, D8, 0));
    }
    a0.intoArray(acc, a);
    a1.intoArray(acc, a + 8);
    a2.intoArray(acc, a + 16);
    a3.intoArray(acc, a + 24);
  }

  /**
   * Bias (sum of r, when {@code bias}) and loss (sum of r*r in binary64) lanes over full chunks.
   */
  static void biasAndLoss(float[] r, int full, boolean bias, double[] acc, int ab, int al) {
    for (int q = 0; q < 32; q += 8) {
      DoubleVector b = DoubleVector.fromArray(D8, acc, ab + q);
      DoubleVector l = DoubleVector.fromArray(D8, acc, al + q);
      for (int c = 0; c < full; c += 32) {
        DoubleVector rv =
            (DoubleVector)
                FloatVector.fromArray(F8, r, c + q).convertShape(VectorOperators.F2D, D8, 0);
        b = b.add(rv);
        l = l.add(rv.mul(rv));
      }
      if (bias) {
        b.intoArray(acc, ab + q);
      }
      l.intoArray(acc, al + q);
    }
  }
}
