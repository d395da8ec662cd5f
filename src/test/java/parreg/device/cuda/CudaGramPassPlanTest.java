package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import parreg.solver.GramOrder;

/**
 * The statistics pass's launch shapes without a card: the patches cover every entry of the packed
 * triangle exactly once, a block has a thread for each of its cells and enough to stage a slice
 * (gram_stats.cuh's GS_UNITS), the shared memory fits an H100/H200 block, the grid fits CUDA's
 * limits; and the kernel bodies, compiled for the host, give the bits of the order written
 * literally (scripts/check/kernel-emu/run-gram.sh, where g++ is present).
 */
class CudaGramPassPlanTest {

  @Test
  void patchesCoverTheTriangleOnce() {
    for (int d :
        new int[] {0, 1, 2, 3, 14, 30, 61, 62, 85, 86, 87, 90, 130, 255, 1023, 1024, 4096}) {
      int m = GramOrder.columns(d);
      int[] seen = new int[GramOrder.entries(m)];
      List<int[]> patches = CudaGramPass.patches(m);
      int cr = (m + 3) / 4;
      int threads = CudaGramPass.blockThreads(cr);
      assertTrue(threads % 32 == 0 && threads <= 256, "block of " + threads);
      assertTrue(CudaGramPass.fits(d, 227 * 1024), "shared memory of an H100/H200 at d=" + d);
      assertTrue(CudaGramPass.fits(d, 64 * 1024) == (d <= 86), "shared memory of 7.5 at d=" + d);
      for (int[] p : patches) {
        boolean diag = p[0] == p[1];
        int cells = diag ? p[2] * (p[2] + 1) / 2 : p[2] * p[3];
        assertTrue(cells <= threads, "a thread a cell at d=" + d);
        int quads = diag ? p[2] : p[2] + p[3];
        assertTrue(32 * quads <= 4 * threads, "a slice's quads staged 4 a thread at d=" + d);
        for (int ci = 0; ci < p[2]; ci++) {
          for (int ck = diag ? ci : 0; ck < p[3]; ck++) {
            for (int r = 0; r < 4; r++) {
              for (int c = 0; c < 4; c++) {
                int j = 4 * (p[0] + ci) + r;
                int k = 4 * (p[1] + ck) + c;
                if (j <= k && k < m) {
                  seen[GramOrder.index(j, k, m)]++;
                }
              }
            }
          }
        }
      }
      for (int e = 0; e < seen.length; e++) {
        assertEquals(1, seen[e], "entry " + e + " at d=" + d);
      }
    }
  }

  /**
   * gram_stats.cuh's address of feature c of sample l in slice sl (gs_value, gs_stage) is where
   * ResidentLayout puts it, in the plain, quad and octet layouts.
   */
  @Test
  void kernelAddressesMatchTheResidentLayouts() {
    int n = 100;
    int d = 7;
    float[] x = new float[n * d];
    for (int i = 0; i < x.length; i++) {
      x[i] = i + 1;
    }
    parreg.device.Partition p = new parreg.device.Partition(n, d, x, new float[n]);
    ResidentLayout[] layouts = {
      new ResidentLayout(d, 9, false),
      new ResidentLayout(d, 12, true),
      new ResidentLayout(d, 8, true, 8)
    };
    for (ResidentLayout layout : layouts) {
      int slices = (int) ResidentLayout.slices(n);
      float[] buf = new float[slices * layout.sliceFloats()];
      layout.build(p, 0, slices, buf);
      int sf = layout.sliceFeatures();
      int q = 1 << layout.quadLog();
      int g = 1 << layout.groupLog();
      for (int i = 0; i < n; i++) {
        for (int c = 0; c < d; c++) {
          int sl = i / 32;
          int l = i % 32;
          int off =
              sl * 32 * sf
                  + (l >> layout.groupLog()) * sf * g
                  + (c >> layout.quadLog()) * q * g
                  + (l & (g - 1)) * q
                  + (c & (q - 1));
          assertEquals(x[c * n + i], buf[off], "feature " + c + " of sample " + i);
        }
      }
    }
  }

  @Test
  void gridFitsTheLimits() {
    for (int tiles : new int[] {0, 1, 7, 256, 78_125, 8_388_608}) { // up to 2^31 samples
      for (int patches : new int[] {1, 6, 2145}) {
        int log = CudaGramPass.blockLog(patches, tiles, 132);
        assertTrue(log >= 0 && log <= CudaGramPass.MAX_BLOCK_LOG);
        long blocks = tiles == 0 ? 0 : ((tiles - 1L) >> log) + 1;
        assertTrue(blocks <= 65_535, blocks + " blocks of tiles");
      }
    }
    assertEquals(4, CudaGramPass.blockLog(1, 78_125, 132), "20 M samples at d = 64: 4,883 blocks");
  }

  /** The blocks' values stay a small share of the card beside the data (here at most 2 GB). */
  @Test
  void blockValuesStaySmall() {
    int[][] shapes = {{20_000_000, 64}, {400_000, 1024}, {100_000, 4096}, {8_000_000, 4096}};
    for (int[] s : shapes) {
      int m = GramOrder.columns(s[1]);
      int patches = CudaGramPass.patches(m).size();
      int tiles = GramOrder.tiles(s[0]);
      int log = CudaGramPass.blockLog(patches, tiles, 132);
      long blocks = ((tiles - 1L) >> log) + 1;
      long bytes = 16L * GramOrder.entries(m) * blocks;
      assertTrue(bytes <= 2L << 30, bytes + " bytes of block values at " + s[0] + " x " + s[1]);
    }
  }

  @Test
  void kernelBodiesGiveTheOrdersBitsOnTheHost() throws Exception {
    Path script = Path.of("scripts/check/kernel-emu/run-gram.sh").toAbsolutePath();
    Assumptions.assumeTrue(Files.isRegularFile(script), "skipped: run from the repository root");
    Process probe;
    try {
      probe = new ProcessBuilder("g++", "--version").redirectErrorStream(true).start();
      probe.getInputStream().readAllBytes();
      probe.waitFor();
    } catch (java.io.IOException e) {
      Assumptions.abort("skipped: g++ is not on the PATH here");
      return;
    }
    Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "timed out");
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("identical") && !out.contains("DIFFERENT"), out);
  }
}
