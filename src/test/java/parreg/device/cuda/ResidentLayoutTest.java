package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import parreg.device.Partition;

/**
 * The host-side conversion to the kernels' resident layouts puts every value where the kernels'
 * index functions (local_sums.cuh {@code xat}, {@code xq}, {@code xo}) read it and zeros everywhere
 * else, for every thread count, chunk start and chunk length (lengths that are not a multiple of
 * the task size, a partial last slice, padding features).
 */
class ResidentLayoutTest {

  static Partition random(int n, int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * d];
    float[] y = new float[n];
    for (int k = 0; k < x.length; k++) {
      x[k] = Float.intBitsToFloat(r.nextInt(1, 0x7f000000)); // nonzero: a misplaced zero shows
    }
    return new Partition(n, d, x, y);
  }

  /**
   * The value at index k of slice-layout x (plain: xat; quads: xq; quads in groups of 8 lanes: xo),
   * or 0 for padding.
   */
  static float expected(Partition p, int sliceFeatures, boolean quads, int groupLanes, long k) {
    int sf = 32 * sliceFeatures;
    long slice = k / sf;
    int in = (int) (k % sf);
    int j;
    int lane;
    if (groupLanes == 8) {
      int group = in / (8 * sliceFeatures); // xo: [4][sliceFeatures / 4][8][4]
      int g = in % (8 * sliceFeatures);
      j = (g / 32) * 4 + g % 4;
      lane = group * 8 + (g % 32) / 4;
    } else if (quads) {
      j = (in / 128) * 4 + in % 4;
      lane = (in % 128) / 4;
    } else {
      j = in / 32;
      lane = in % 32;
    }
    long i = slice * 32 + lane;
    return j < p.features() && i < p.samples() ? p.x((int) i, j) : 0f;
  }

  @Test
  void everyValueLandsWhereTheKernelsReadIt() {
    int[][] shapes = {
      {1, 1, 1, 0},
      {1000, 3, 3, 0},
      {70_001, 5, 5, 0},
      {9_000, 17, 64, 1},
      {5_003, 66, 68, 1},
      {40_000, 100, 128, 1},
      {4_097, 193, 256, 1},
      {33, 64, 64, 1},
      {1_001, 257, 384, 2},
      {97, 1021, 1024, 2},
      {77, 513, 640, 2}
    };
    for (int[] s : shapes) {
      int n = s[0];
      int d = s[1];
      int sliceFeatures = s[2];
      boolean quads = s[3] >= 1;
      int groupLanes = s[3] == 2 ? 8 : 32; // 2: the octet layout (wide plan)
      Partition p = random(n, d, n * 7L + d);
      ResidentLayout layout = new ResidentLayout(d, sliceFeatures, quads, groupLanes);
      long slices = ResidentLayout.slices(n);
      for (int threads : new int[] {1, 3}) {
        for (int chunk : new int[] {3, ResidentLayout.TASK_SLICES + 5, 1000}) {
          int c = (int) Math.min(chunk, slices);
          FloatBuffer all =
              ByteBuffer.allocateDirect((int) (4 * slices * layout.sliceFloats()))
                  .order(ByteOrder.nativeOrder())
                  .asFloatBuffer();
          FloatBuffer stage =
              ByteBuffer.allocateDirect(4 * c * layout.sliceFloats())
                  .order(ByteOrder.nativeOrder())
                  .asFloatBuffer();
          for (long s0 = 0; s0 < slices; s0 += c) {
            int cs = (int) Math.min(c, slices - s0);
            for (int k = 0; k < cs * layout.sliceFloats(); k++) {
              stage.put(k, Float.NaN); // stale content from the previous chunk must be overwritten
            }
            layout.fill(p, s0, cs, stage, threads);
            for (int k = 0; k < cs * layout.sliceFloats(); k++) {
              all.put((int) (s0 * layout.sliceFloats() + k), stage.get(k));
            }
          }
          for (long k = 0; k < slices * layout.sliceFloats(); k++) {
            float want = expected(p, sliceFeatures, quads, groupLanes, k);
            float got = all.get((int) k);
            if (Float.floatToRawIntBits(want) != Float.floatToRawIntBits(got)) {
              assertEquals(
                  Float.floatToRawIntBits(want),
                  Float.floatToRawIntBits(got),
                  "n="
                      + n
                      + " d="
                      + d
                      + " width="
                      + sliceFeatures
                      + " quads="
                      + quads
                      + " threads="
                      + threads
                      + " chunk="
                      + chunk
                      + " index "
                      + k);
            }
          }
        }
      }
    }
  }
}
