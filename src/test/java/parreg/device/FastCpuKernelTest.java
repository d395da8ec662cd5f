package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fast CPU kernel gives the reference kernel's bits: several shapes, with and without bias,
 * batches at offsets, values including subnormals, signed zeros and large exponents, for 1, 2, 3
 * and 8 threads, on both its SIMD and its plain-loop path.
 */
class FastCpuKernelTest {
  static final int[] DS = {1, 3, 16, 257};
  static final int[] NS = {1, 31, 33, 1023, 1025, 5000, 100003};
  static final int[] THREADS = {1, 2, 3, 8};
  static final List<FastCpuKernel> KERNELS = new ArrayList<>();

  @BeforeAll
  static void kernels() {
    for (int t : THREADS) {
      KERNELS.add(new FastCpuKernel(t, false));
      if (FastCpuKernel.VECTOR_AVAILABLE) {
        KERNELS.add(new FastCpuKernel(t, true));
      }
    }
  }

  @AfterAll
  static void close() {
    KERNELS.forEach(FastCpuKernel::close);
  }

  @Test
  void vectorPathIsAvailableUnderTheBuildsJvmFlags() {
    // surefire runs with --add-modules jdk.incubator.vector, as bin/parreg does; without the module
    // the SIMD path would be silently off and the benchmark figures would not apply.
    assertTrue(
        ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent(),
        "jdk.incubator.vector not resolved");
    // The loops are written for 512-bit vectors: used exactly where the processor has them
    // (AVX-512),
    // scalar elsewhere (same bits either way, see the parity tests below).
    assertEquals(
        VectorLanes.nativeWidthIs512(),
        FastCpuKernel.VECTOR_AVAILABLE,
        "vector path on a processor whose preferred vector is "
            + jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize()
            + " bits");
  }

  /** A value of the test distribution: mostly ordinary, some subnormal, signed zero or huge. */
  static float value(SplittableRandom rnd) {
    int k = rnd.nextInt(20);
    return switch (k) {
      case 0, 1 ->
          Float.MIN_VALUE * rnd.nextInt(1, 1 << 23) * (rnd.nextBoolean() ? 1 : -1); // subnormal
      case 2 -> 0f;
      case 3 -> -0f;
      case 4 ->
          (float) Math.scalb(rnd.nextDouble(1, 2), rnd.nextInt(30, 56))
              * (rnd.nextBoolean() ? 1 : -1);
      case 5 -> (float) Math.scalb(rnd.nextDouble(1, 2), -rnd.nextInt(100, 126)); // tiny normal
      default -> (float) (rnd.nextGaussian() * 3);
    };
  }

  static Partition random(int n, int d, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    float[] x = new float[n * d];
    float[] y = new float[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = value(rnd);
    }
    for (int i = 0; i < n; i++) {
      y[i] = value(rnd);
    }
    return new Partition(n, d, x, y);
  }

  static double[] params(int d, boolean bias, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] w = new double[d + (bias ? 1 : 0)];
    for (int j = 0; j < w.length; j++) {
      w[j] =
          switch (rnd.nextInt(8)) {
            case 0 ->
                Math.scalb(rnd.nextDouble(1, 2), -rnd.nextInt(127, 150)); // a binary32 subnormal
            case 1 -> -0.0;
            case 2 -> 0.0;
            default -> rnd.nextGaussian() * 2;
          };
    }
    return w;
  }

  static void assertSame(LocalSums expected, LocalSums actual, String what) {
    assertEquals(expected.mass(), actual.mass(), what + ": mass");
    assertEquals(
        Double.doubleToRawLongBits(expected.lossSum()),
        Double.doubleToRawLongBits(actual.lossSum()),
        what + ": loss " + expected + " vs " + actual);
    for (int j = 0; j < expected.length(); j++) {
      assertEquals(
          Double.doubleToRawLongBits(expected.gradient(j)),
          Double.doubleToRawLongBits(actual.gradient(j)),
          what + ": S[" + j + "] " + expected.gradient(j) + " vs " + actual.gradient(j));
    }
  }

  @Test
  void sameBitsAsTheReferenceOnEveryShape() {
    long seed = 1;
    for (int d : DS) {
      for (int n : NS) {
        Partition p = random(n, d, seed++);
        for (boolean bias : new boolean[] {false, true}) {
          double[] w = params(d, bias, seed++);
          // the whole partition, and a batch at an odd offset
          int[][] batches = n > 40 ? new int[][] {{0, n}, {7, n - 40}} : new int[][] {{0, n}};
          for (int[] b : batches) {
            LocalSums ref = ReferenceKernel.compute(p, b[0], b[1], w, bias);
            for (FastCpuKernel k : KERNELS) {
              assertSame(
                  ref,
                  k.compute(p, b[0], b[1], w, bias),
                  "d="
                      + d
                      + " n="
                      + n
                      + " bias="
                      + bias
                      + " batch=["
                      + b[0]
                      + "+"
                      + b[1]
                      + ") "
                      + k.describe());
            }
          }
        }
      }
    }
  }

  @Test
  void wideModels() {
    // d in the thousands: sub-blocks of 128 samples, lane accumulators for every feature
    for (int d : new int[] {1000, 4099}) {
      Partition p = random(1100, d, d);
      for (boolean bias : new boolean[] {false, true}) {
        double[] w = params(d, bias, d + 1);
        LocalSums ref = ReferenceKernel.compute(p, 3, 1090, w, bias);
        for (FastCpuKernel k : KERNELS) {
          assertSame(
              ref, k.compute(p, 3, 1090, w, bias), "d=" + d + " bias=" + bias + " " + k.describe());
        }
      }
    }
  }

  @Test
  void miniBatchesAtTileUnalignedOffsets() {
    Partition p = random(10_000, 5, 99);
    double[] w = params(5, true, 100);
    Batching batching = new Batching(10_000, 1500);
    for (int b = 0; b < batching.batchesPerEpoch(); b++) {
      LocalSums ref = ReferenceKernel.compute(p, batching.start(b), batching.length(b), w, true);
      for (FastCpuKernel k : KERNELS) {
        assertSame(
            ref,
            k.compute(p, batching.start(b), batching.length(b), w, true),
            "batch " + b + " " + k.describe());
      }
    }
  }

  @Test
  void theGoldenSeedRunThroughTheFastBackend() {
    double[] w = {3.0};
    double rate = LearningRate.parse("1/4").value();
    try (CpuBackend b0 = new CpuBackend(CpuBackend.Mode.FAST, 2);
        CpuBackend b1 = new CpuBackend(CpuBackend.Mode.FAST, 2)) {
      b0.load(SeedData.partition(0), false);
      b1.load(SeedData.partition(1), false);
      for (int k = 1; k <= 200; k++) {
        LocalSums s0 = b0.launch(w, 0, 1).await();
        LocalSums s1 = b1.launch(w, 0, 2).await();
        w = UpdateRule.apply(w, new LocalSums[] {s0, s1}, rate).parameters();
        if (k == 150) {
          assertEquals(0x36a8000000000000L, Double.doubleToRawLongBits(w[0]));
        }
      }
    }
    assertEquals(
        0x3690000000000000L,
        Double.doubleToRawLongBits(w[0]),
        "w after step 200 (a flush-to-zero path stalls at 3*2^-128)");
  }

  @Test
  void backendModesAgree() {
    Partition p = random(3000, 4, 5);
    double[] w = params(4, true, 6);
    try (CpuBackend fast = new CpuBackend();
        CpuBackend ref = new CpuBackend(CpuBackend.Mode.REFERENCE, 1)) {
      fast.load(p, true);
      ref.load(p, true);
      assertSame(
          ref.launch(w, 100, 2900).await(), fast.launch(w, 100, 2900).await(), "backend modes");
      assertEquals(CpuBackend.Mode.FAST, fast.mode());
      assertTrue(fast.info().detail().startsWith("fast kernel"), fast.info().detail());
    }
  }
}
