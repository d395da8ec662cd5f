package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import parreg.device.KernelBackend;
import parreg.device.LearningRate;
import parreg.device.LocalSums;
import parreg.device.SeedData;
import parreg.device.UpdateRule;

/** SPEC section 2's golden seed run on the CUDA backend: catches flush-to-zero on the device. */
@Tag("gpu")
class CudaGoldenTrajectoryTest {
  static final Map<Integer, Long> GOLDEN = parreg.device.GoldenTrajectoryTest.GOLDEN;

  @Test
  void seedRunEndsAtTheGoldenBits() {
    try (CudaBackend b0 = CudaTestSupport.openOrSkip(true, null);
        CudaBackend b1 = CudaTestSupport.openOrSkip(true, null)) {
      b0.load(SeedData.partition(0), false);
      b1.load(SeedData.partition(1), false);
      double rate = LearningRate.parse("1/4").value();
      double[] w = {3.0};
      for (int k = 1; k <= 200; k++) {
        KernelBackend.Launch l0 = b0.launch(w, 0, 1);
        LocalSums s0 = l0.await();
        KernelBackend.Launch l1 = b1.launch(w, 0, 2);
        LocalSums s1 = l1.await();
        assertTrue(l0.isRetired() && l1.isRetired());
        assertTrue(l1.deviceMillis() >= 0, "device time from CUDA events");
        w = UpdateRule.apply(w, new LocalSums[] {s0, s1}, rate).parameters();
        Long golden = GOLDEN.get(k);
        if (golden != null) {
          assertEquals(
              golden, Double.doubleToRawLongBits(w[0]), "w after step " + k + " on " + b0.info());
        }
        if (k <= 150) {
          assertEquals(3.0 * Math.scalb(1.0, -k), w[0], "w_k = 3*2^-k, step " + k);
        }
      }
      assertEquals(0x3690000000000000L, Double.doubleToRawLongBits(w[0]));
      assertEquals(400, b0.launches() + b1.launches());
    }
  }
}
