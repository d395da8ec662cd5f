package parreg.device.cuda;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import parreg.device.BackendUnavailableException;
import parreg.device.Partition;

/** Shared helpers of the GPU tests: skip with a visible reason where no CUDA device answers. */
final class CudaTestSupport {
  private CudaTestSupport() {}

  /**
   * The benchmark's comparison kernels (bench/src/main/resources, on the test class path only: the
   * product jar does not carry them), which the parity tests' forced plans load beside the
   * product's.
   */
  static final String COMPARISON_PTX = "/parreg/bench/kernels/comparison_sums.ptx";

  /** The device the GPU tests use: system property parreg.test.device, else ordinal 0. */
  static String device() {
    return System.getProperty("parreg.test.device", "0");
  }

  /** The cards found, or the test is skipped (aborted) with the reason none answers. */
  static List<CudaCard.DeviceDescription> devicesOrSkip() {
    try {
      List<CudaCard.DeviceDescription> found = CudaBackend.devices();
      Assumptions.assumeFalse(found.isEmpty(), "skipped: the CUDA driver reports no card");
      return found;
    } catch (BackendUnavailableException e) {
      Assumptions.abort("skipped: no CUDA device answers here (" + e.getMessage() + ")");
      throw new AssertionError("unreachable");
    }
  }

  static CudaBackend openOrSkip(boolean ordered, String plan) {
    devicesOrSkip();
    try {
      return CudaBackend.openForBenchmark(device(), CudaTestSupport.COMPARISON_PTX, ordered, plan);
    } catch (BackendUnavailableException e) {
      Assumptions.abort(
          "skipped: CUDA device " + device() + " cannot be opened (" + e.getMessage() + ")");
      throw new AssertionError("unreachable");
    }
  }

  /**
   * A binary32 value from a mix that exercises the policy: zeros of both signs, subnormals, tiny
   * and large normals, and ordinary values. Magnitudes stay below 2^30 so that no product or
   * residual overflows binary32 for d up to a few thousand and weights below 2^10.
   */
  static float value(SplittableRandom r) {
    int k = r.nextInt(20);
    float sign = r.nextBoolean() ? 1f : -1f;
    switch (k) {
      case 0:
        return 0f;
      case 1:
        return -0f;
      case 2:
      case 3:
        return sign * Float.intBitsToFloat(r.nextInt(1, 0x800000)); // subnormal
      case 4:
        return sign * Math.scalb(1f + r.nextFloat(), -r.nextInt(100, 127)); // tiny normal
      case 5:
        return sign * Math.scalb(1f + r.nextFloat(), r.nextInt(10, 30)); // large
      default:
        return sign * Float.intBitsToFloat((r.nextInt(120, 130) << 23) | r.nextInt(0x800000));
    }
  }

  /** Parameters (binary64) whose binary32 roundings include zeros, subnormals and odd values. */
  static double[] params(SplittableRandom r, int count) {
    double[] w = new double[count];
    for (int j = 0; j < count; j++) {
      int k = r.nextInt(10);
      double sign = r.nextBoolean() ? 1 : -1;
      w[j] =
          switch (k) {
            case 0 -> 0.0;
            case 1 ->
                sign * Math.scalb(r.nextDouble(), -r.nextInt(127, 150)); // rounds to subnormal or 0
            case 2 -> sign * Math.scalb(1 + r.nextDouble(), r.nextInt(1, 10));
            default -> sign * r.nextDouble() * 2;
          };
    }
    return w;
  }

  /** A random partition, generated in parallel (deterministic for the seed). */
  static Partition partition(long seed, int n, int d) {
    float[] x = new float[Math.multiplyExact(n, d)];
    float[] y = new float[n];
    int chunk = 1 << 20;
    int chunks = (int) ((x.length + (long) chunk - 1) / chunk);
    IntStream.range(0, chunks)
        .parallel()
        .forEach(
            c -> {
              SplittableRandom r = new SplittableRandom(seed * 1_000_003L + c);
              int end = (int) Math.min(x.length, (long) (c + 1) * chunk);
              for (int i = c * chunk; i < end; i++) {
                x[i] = value(r);
              }
            });
    SplittableRandom ry = new SplittableRandom(seed ^ 0x5DEECE66DL);
    for (int i = 0; i < n; i++) {
      y[i] = value(ry);
    }
    return new Partition(n, d, x, y);
  }
}
