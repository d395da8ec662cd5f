package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import parreg.device.ExactStep;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.Workers;
import parreg.solver.ColumnData;
import parreg.solver.GramPass;
import parreg.solver.GramStats;

/**
 * The card's statistics pass ({@link CudaGramPass}) has the bits of {@link GramPass} (itself the
 * bits of {@code ReferenceGramPass}): every entry's high and low part and the mass, on random data
 * (zeros of both signs, subnormals, tiny and large values), widths not a multiple of 4, n not a
 * multiple of 256, one patch and many, blocks of one tile and several, one tree level and more, the
 * resident layouts of several plans (plain, quad, octet), d up to 4,096.
 */
@Tag("gpu")
class CudaGramParityTest {

  static Stream<Arguments> shapes() {
    return Stream.of(
        Arguments.of(1, 1, null),
        Arguments.of(1, 70_001, null),
        Arguments.of(3, 255, null),
        Arguments.of(5, 5_003, null),
        Arguments.of(13, 257, null),
        Arguments.of(16, 100_001, null),
        Arguments.of(30, 9_000, null),
        Arguments.of(61, 3_001, null),
        Arguments.of(64, 200_003, null),
        Arguments.of(86, 2_049, null),
        Arguments.of(87, 2_049, null),
        Arguments.of(100, 2_049, "large1"),
        Arguments.of(100, 2_049, "flow2"),
        Arguments.of(130, 100_003, null),
        Arguments.of(255, 3_001, null),
        Arguments.of(257, 40_000, null),
        Arguments.of(1023, 5_003, null),
        Arguments.of(4096, 1_100, null));
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("shapes")
  void matchesTheCpuPass(int d, int n, String plan) {
    CudaTestSupport.devicesOrSkip();
    Partition p = CudaTestSupport.partition(17L * d + n, n, d);
    GramStats want =
        GramPass.compute(
            ColumnData.of(p.featureMajor(), p.targets(), n, d), Workers.defaultThreads());
    try (CudaBackend b = CudaTestSupport.openOrSkip(true, plan)) {
      b.load(p, true);
      for (int round = 0; round < 2; round++) { // twice: the pass leaves nothing behind
        KernelBackend.Launch l = b.launchStatistics();
        LocalSums got = l.await();
        assertEquals(n, got.mass(), "mass");
        compare(
            want, ExactStep.contribution(want), got, d, n, b.plan() + ", " + b.statisticsShape());
      }
    }
  }

  /** A gradient step after the pass, and the pass after a step: they share the card's stream. */
  @Test
  void interleavesWithGradientSteps() {
    CudaTestSupport.devicesOrSkip();
    int d = 37;
    int n = 12_345;
    Partition p = CudaTestSupport.partition(99, n, d);
    GramStats want = GramPass.compute(ColumnData.of(p.featureMajor(), p.targets(), n, d), 2);
    try (CudaBackend b = CudaTestSupport.openOrSkip(true, null)) {
      b.load(p, true);
      double[] w = new double[d + 1];
      LocalSums before = b.launch(w, 0, n).await();
      compare(want, ExactStep.contribution(want), b.launchStatistics().await(), d, n, b.plan());
      LocalSums after = b.launch(w, 0, n).await();
      assertEquals(before, after, "the gradient step after the pass");
    }
  }

  private static void compare(
      GramStats want, LocalSums wantSums, LocalSums got, int d, int n, String what) {
    assertEquals(wantSums.length(), got.length(), "values");
    int e = want.entries();
    for (int i = 0; i < 2 * e; i++) {
      long a = Double.doubleToRawLongBits(wantSums.gradient(i));
      long b = Double.doubleToRawLongBits(got.gradient(i));
      if (a != b) {
        fail(
            String.format(
                "d=%d n=%d (%s): entry %d's %s part differs: CPU %s, card %s",
                d, n, what, i % e, i < e ? "high" : "low", wantSums.gradient(i), got.gradient(i)));
      }
    }
  }
}
