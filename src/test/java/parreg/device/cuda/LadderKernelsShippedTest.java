package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every kernel the ladder can choose (main, fallback, gradient pass) at d = 1..8,190, on cards of
 * 48 KB to 227 KB of opt-in shared memory, with much or little free memory, small and large
 * partitions, is in the product's PTX (or, on cards of compute capability 9.0, in the sm90 module):
 * the product never needs the benchmark's comparison module.
 */
class LadderKernelsShippedTest {
  @Test
  void everyKernelTheLadderChoosesIsShipped() throws Exception {
    java.util.Set<String> base =
        entries(CudaBackendWithoutGpuTest.resource(CudaCard.PTX_RESOURCE, "PTX resource"));
    java.util.Set<String> sm90 =
        entries(
            CudaBackendWithoutGpuTest.resource(CudaCard.SM90_PTX_RESOURCE, "sm90 PTX resource"));
    TreeSet<String> missing = new TreeSet<>();
    TreeSet<String> chosen = new TreeSet<>();
    for (int d = 1; d <= 8190; d++) {
      for (int smem : new int[] {48 * 1024, 64 * 1024, 80 * 1024, 99 * 1024, 166_912, 232_448}) {
        for (long free : new long[] {1L << 30, 100L << 30}) {
          for (long slices : new long[] {1000, 32L * WidePlans.WIDEC_WIDE_TILES, 3_125_000}) {
            for (boolean hopper : new boolean[] {false, true}) {
              CudaPlan p = CudaPlan.choose(d, slices, smem, free, true, null, hopper);
              for (String k : java.util.Arrays.asList(p.main(), p.fallback(), p.grad())) {
                if (k == null) {
                  continue;
                }
                chosen.add(k);
                if (!base.contains(k) && !(hopper && sm90.contains(k))) {
                  missing.add(k + " (" + p.name() + " at d=" + d + ")");
                }
              }
            }
          }
        }
      }
    }
    assertEquals(List.of(), List.copyOf(missing), "kernels the ladder chooses, not shipped");
    assertTrue(chosen.contains("deepxb_o") && chosen.contains("widet_o_1024_2x2"), "" + chosen);
  }

  /** The names of a PTX module's kernels. */
  static java.util.Set<String> entries(String ptx) {
    java.util.Set<String> names = new java.util.HashSet<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\.entry (\\w+)\\(").matcher(ptx);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
