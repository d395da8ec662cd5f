package parreg.device.cuda;

import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import parreg.device.Partition;
import parreg.device.Workers;

/**
 * x in the layout the kernels read on the card, converted from the partition's feature-major arrays
 * on the host. Slice {@code s} holds samples {@code 32 s .. 32 s + 31}, {@code sliceFeatures}
 * features of each, 32 floats a feature; the last slice's missing samples and any padding features
 * are zeros.
 *
 * <ul>
 *   <li>plain ({@code quads = false}, local_sums.cuh {@code xat}): feature by feature, [d][32];
 *   <li>quad ({@code quads = true}, {@code xq}): [sliceFeatures / 4][32][4], four consecutive
 *       features of one sample in one 16-byte vector;
 *   <li>octet ({@code quads = true}, {@code groupLanes = 8}, {@code xo}, the wide plan): the quad
 *       layout of each group of 8 samples in turn, [4][sliceFeatures / 4][8][4].
 * </ul>
 *
 * <p>Public for the load benchmark (DataLoadBench times the conversion without a card).
 *
 * <p>Conversion runs in parallel ({@link Workers}): tasks of {@value #TASK_SLICES} slices, each
 * built in a scratch array and copied to its own place in the destination, so the bytes do not
 * depend on the thread count.
 */
public final class ResidentLayout {
  /** Slices one conversion task builds (at d = 64, 1 MiB). */
  static final int TASK_SLICES = 128;

  private final int d;
  private final int sliceFeatures;
  private final boolean quads;

  /** Samples of a lane group (32: the whole slice; 8: the octet layout). */
  private final int groupLanes;

  /** Scratch arrays of the conversion tasks, one per thread at a time; garbage with this layout. */
  private final ConcurrentLinkedQueue<float[]> scratch = new ConcurrentLinkedQueue<>();

  public ResidentLayout(int d, int sliceFeatures, boolean quads) {
    this(d, sliceFeatures, quads, 32);
  }

  /** {@code groupLanes} 8: the octet layout (quads only); 32: the others. */
  public ResidentLayout(int d, int sliceFeatures, boolean quads, int groupLanes) {
    if ((groupLanes != 32 && !(groupLanes == 8 && quads))
        || sliceFeatures < d
        || (quads && sliceFeatures % 4 != 0)) {
      throw new IllegalArgumentException(
          "a slice of "
              + sliceFeatures
              + " features cannot hold d="
              + d
              + (quads ? " in quads" : ""));
    }
    this.d = d;
    this.sliceFeatures = sliceFeatures;
    this.quads = quads;
    this.groupLanes = groupLanes;
  }

  static ResidentLayout of(CudaPlan plan, int d) {
    return new ResidentLayout(
        d, plan.sliceFeatures(), plan.quads(), plan.kernelFamily().octets() ? 8 : 32);
  }

  /** Features of one slice (at least d; the padding features are zeros). */
  int sliceFeatures() {
    return sliceFeatures;
  }

  /** log2 of the features a layout vector holds: 2 in the quad and octet layouts, else 0. */
  int quadLog() {
    return quads ? 2 : 0;
  }

  /** log2 of the samples of a lane group: 5 (a whole slice) or 3 (the octet layout). */
  int groupLog() {
    return Integer.numberOfTrailingZeros(groupLanes);
  }

  /** Floats of one slice. */
  public int sliceFloats() {
    return 32 * sliceFeatures;
  }

  /** Slices that hold n samples. */
  public static long slices(int n) {
    return ((long) n + 31) / 32;
  }

  /**
   * Writes slices {@code [first, first + count)} of {@code p} to {@code dst} from its index 0 (an
   * absolute write: {@code dst}'s position is not used), on {@code threads} threads.
   */
  public void fill(Partition p, long first, int count, FloatBuffer dst, int threads) {
    if (p.features() != d) {
      throw new IllegalArgumentException("layout for d=" + d + ", partition has d=" + p.features());
    }
    int tasks = (count + TASK_SLICES - 1) / TASK_SLICES;
    Workers.run(
        threads,
        tasks,
        t -> {
          int s0 = t * TASK_SLICES;
          int cs = Math.min(TASK_SLICES, count - s0);
          float[] buf = scratch.poll();
          if (buf == null) {
            buf = new float[TASK_SLICES * sliceFloats()];
          }
          build(p, first + s0, cs, buf);
          dst.put(s0 * sliceFloats(), buf, 0, cs * sliceFloats());
          scratch.add(buf);
        });
  }

  /** Builds slices {@code [first, first + count)} into {@code buf} from index 0. */
  void build(Partition p, long first, int count, float[] buf) {
    float[] x = p.featureMajor();
    int n = p.samples();
    int sf = sliceFloats();
    for (int sl = 0; sl < count; sl++) {
      long firstSample = (first + sl) * 32;
      int have = (int) Math.min(32, n - firstSample);
      int base = sl * sf;
      if (have < 32 || sliceFeatures > d) {
        Arrays.fill(buf, base, base + sf, 0f);
      }
      if (quads) {
        for (int j = 0; j < d; j++) {
          int src = (int) ((long) j * n + firstSample);
          int dst = base + (j >> 2) * 4 * groupLanes + (j & 3);
          for (int l = 0; l < have; l++) {
            // sample l: group l / groupLanes (sliceFeatures * groupLanes floats each), lane l %
            // groupLanes
            buf[dst + (l / groupLanes) * sliceFeatures * groupLanes + 4 * (l % groupLanes)] =
                x[src + l];
          }
        }
      } else {
        for (int j = 0; j < d; j++) {
          System.arraycopy(x, (int) ((long) j * n + firstSample), buf, base + j * 32, have);
        }
      }
    }
  }
}
