package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** SPEC section 2's golden values on the seed run, bit for bit, and a flush-to-zero control. */
public class GoldenTrajectoryTest {

  /** SPEC section 2's golden values: step -> binary64 bits of w. */
  public static final Map<Integer, Long> GOLDEN =
      new TreeMap<>(
          Map.of(
              1, 0x3ff8000000000000L,
              2, 0x3fe8000000000000L,
              10, 0x3f68000000000000L,
              128, 0x3808000000000000L,
              150, 0x36a8000000000000L,
              151, 0x3690000000000000L,
              200, 0x3690000000000000L));

  /** Runs the seed two-participant loop with the given kernel and records w after each step. */
  static double[] trajectory(Kernel kernel, int steps) {
    Partition p0 = SeedData.partition(0);
    Partition p1 = SeedData.partition(1);
    double rate = LearningRate.parse("1/4").value();
    double[] w = {3.0};
    double[] out = new double[steps + 1];
    out[0] = w[0];
    for (int k = 1; k <= steps; k++) {
      LocalSums s0 = kernel.compute(p0, w);
      LocalSums s1 = kernel.compute(p1, w);
      w = UpdateRule.apply(w, new LocalSums[] {s0, s1}, rate).parameters();
      out[k] = w[0];
    }
    return out;
  }

  interface Kernel {
    LocalSums compute(Partition p, double[] w);
  }

  @Test
  void referenceKernelFollowsTheGoldenTrajectory() {
    double[] w =
        trajectory((p, params) -> ReferenceKernel.compute(p, 0, p.samples(), params, false), 400);
    for (Map.Entry<Integer, Long> e : GOLDEN.entrySet()) {
      assertEquals(
          e.getValue(), Double.doubleToRawLongBits(w[e.getKey()]), "w after step " + e.getKey());
    }
    for (int k = 1; k <= 150; k++) {
      assertEquals(3.0 * Math.scalb(1.0, -k), w[k], "w_k = 3*2^-k for k <= 150, step " + k);
    }
    for (int k = 151; k <= 400; k++) {
      assertEquals(
          0x3690000000000000L, Double.doubleToRawLongBits(w[k]), "w stays at 2^-150, step " + k);
    }
  }

  @Test
  void cpuBackendThroughTheFenceProtocolMatches() {
    CpuBackend b0 = new CpuBackend();
    CpuBackend b1 = new CpuBackend();
    b0.load(SeedData.partition(0), false);
    b1.load(SeedData.partition(1), false);
    double[] w =
        trajectory(
            (p, params) -> (p.samples() == 1 ? b0 : b1).launch(params, 0, p.samples()).await(),
            200);
    assertEquals(0x3690000000000000L, Double.doubleToRawLongBits(w[200]));
  }

  /** A kernel that flushes binary32 subnormals to zero, as a careless GPU build would. */
  static LocalSums flushToZeroKernel(Partition p, double[] w) {
    float w32 = ftz((float) w[0]);
    double s = 0.0;
    double loss = 0.0;
    for (int i = 0; i < p.samples(); i++) {
      float r = ftz(ftz(w32 * p.x(i, 0)) - p.y(i));
      s += ftz(r * p.x(i, 0));
      loss += (double) r * r;
    }
    return new LocalSums(new double[] {s}, loss, p.samples());
  }

  static float ftz(float v) {
    return Math.abs(v) < Float.MIN_NORMAL ? 0f : v;
  }

  @Test
  void aFlushToZeroBackendStallsAndIsCaught() {
    double[] w = trajectory(GoldenTrajectoryTest::flushToZeroKernel, 200);
    assertEquals(
        0x3808000000000000L, Double.doubleToRawLongBits(w[128]), "same as golden through step 128");
    assertEquals(0x3808000000000000L, Double.doubleToRawLongBits(w[200]), "stalls at 3*2^-128");
    assertNotEquals(
        GOLDEN.get(200), Double.doubleToRawLongBits(w[200]), "the golden check discriminates");
  }
}
