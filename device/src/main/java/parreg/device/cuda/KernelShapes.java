package parreg.device.cuda;

/**
 * The kernels' built shapes, the slice widths they read and the shared memory each needs (the
 * kernels are local_sums.cu's, local_sums_sm90.cu's and the benchmark's comparison module's): the
 * facts {@link CudaPlan}'s ladder and forced plans are made of, and that the backend and the tests
 * check against the PTX. Pure functions of d and the width, no driver call.
 */
final class KernelShapes {
  private KernelShapes() {}

  /** The spec kernels' shape (local_sums.cuh, SPEC_KERNEL): chain warps and slots per block. */
  static final int SPEC_CHAIN_WARPS = 6;

  static final int SPEC_SLOTS = 6;

  /**
   * The wide kernels' shape (local_sums.cuh, WIDE_KERNEL): chain warps (one slot each),
   * accumulating warps.
   */
  static final int WIDE_CHAIN_WARPS = 6;

  static final int WIDE_ACC_WARPS = 8;

  /** Threads per block of the narrow kernels (local_sums.cuh, NARROW_KERNEL). */
  static final int NARROW_BLOCK = 64;

  /**
   * The shape of the forced plan "split" at d (its kernel in the product module, also specp's
   * fallback for batches at offsets), or null: the fastest split shape at each width (one H200,
   * 2026-11-30, TB/s): at d = 17 2x9_u8t4 3.55 (2x9_u4t4p 3.21, 2x12_u2t4p 3.22, 2x12_u4t4 2.72);
   * at 24 2x12_u2t4p 3.63 (2x12_u4t4 2.99); at 32 2x16_u2t4p 3.47 (2x16_u4t4 3.39, 2x16_u2t3p
   * 3.38); at 48 4x12_u2t2p 3.17 (3x16_u2t5p 3.04).
   */
  static String splitShape(int d) {
    if (d <= 16 || d > 48) {
      return null;
    }
    return d <= 18 ? "2x9_u8t4" : d <= 24 ? "2x12_u2t4p" : d <= 32 ? "2x16_u2t4p" : "4x12_u2t2p";
  }

  /**
   * The deepf kernels' warps (comparison_sums.cu, DEEPF_KERNEL): {chain warps C, gradient warps A};
   * forced plans only (the benchmark, the parity tests).
   */
  static final java.util.Map<String, int[]> DEEPF_SHAPES =
      java.util.Map.of(
          "deepf", new int[] {4, 4},
          "deepfb", new int[] {4, 6},
          "deepfc", new int[] {4, 4},
          "deepfd", new int[] {4, 8});

  /**
   * The deepw kernels' warps (DEEPW_KERNEL): {chain warps C, gradient warps A}; forced plans only
   * until measured.
   */
  static final java.util.Map<String, int[]> DEEPW_SHAPES =
      java.util.Map.of(
          "deepw", new int[] {1, 7},
          "deepwb", new int[] {2, 6},
          "deepwc", new int[] {1, 7},
          "deepwd", new int[] {1, 7},
          "deepwe", new int[] {1, 7});

  /** The deepx kernels' loader warps and ring (local_sums.cuh, DEEPX_SLOTS, DEEPX_ROWS). */
  static final int DEEPX_SLOTS = 6;

  static final int DEEPX_ROWS = 64;

  /**
   * Dynamic shared memory of the deepx kernels: the weights in whole chunks of 4, the ring, the
   * slice tickets.
   */
  static int deepxSmem(int d) {
    return 16 * ((d + 3) / 4) + 4 * 32 * DEEPX_ROWS * DEEPX_SLOTS + 16; // + the slice tickets
  }

  /** The deept shapes built ("RxS": rows a chunk x chunks in the ring; local_sums_sm90.cu). */
  static final java.util.List<String> DEEPT_SHAPES =
      java.util.List.of("64x16", "64x24", "128x12", "32x32");

  /** The deeph shapes built ("RxS": half-rows a chunk x chunks in the ring). */
  static final java.util.List<String> DEEPH_SHAPES = java.util.List.of("64x32", "32x64", "128x24");

  /** The deept kernels' gradient warps (DEEPT_KERNEL: one chain warp, one producer warp). */
  static final int DEEPT_GRAD_WARPS = 8;

  /**
   * Dynamic shared memory of the deept kernels: the weights in whole chunks of 4, the ring of
   * {@code slots} chunks of {@code rows} rows (deeph: rows / 2, its half-rows being half as long),
   * two barriers and the slice a slot.
   */
  static int deeptSmem(int d, int rows, int slots) {
    return 16 * ((d + 3) / 4) + 128 * rows * slots + 20 * slots;
  }

  /** The deepx kernels' gradient warps (DEEPX_KERNEL). */
  static final java.util.Map<String, Integer> DEEPX_GRAD_WARPS =
      java.util.Map.of("deepx", 4, "deepxb", 8, "deepxc", 2, "deepxd", 4);

  /** The narrow kernels' accumulators a lane (24, 32 or 48): the fewest that hold d. */
  static int narrowWidth(int d) {
    return d <= 24 ? 24 : d <= 32 ? 32 : 48;
  }

  /**
   * The narrowest slice width of the spec kernels that the ladder runs (48, 64, 104, 128, 192, 208
   * or 256 features) that holds d.
   */
  static int specWidth(int d) {
    for (int w : SPEC_WIDTHS) {
      if (d <= w) {
        return w;
      }
    }
    return 256;
  }

  /**
   * The spec plan's slice widths in the ladder: the widths of 48, 104 and 208 features read 2.99,
   * 3.44 and 3.83 TB/s at d = 48, 100 and 200 where the next wider one read 2.51 (spec-64), 3.04
   * (spec-128) and 3.28 (spec-256) (one H200, 2026-11-30, every row bits=ref): the padding is what
   * they save. 24 is chosen at d &le; 24 (ladder); 32 is a comparison kernel (forced only).
   */
  static final int[] SPEC_WIDTHS = {48, 64, 104, 128, 192, 208, 256};

  /**
   * The spec kernels' accumulating warps at slice width {@code width} (local_sums.cu, SPEC_KERNEL:
   * each owns a power of two of accumulators a lane).
   */
  static int specAccWarps(int width) {
    return switch (width) {
      case 24, 48 -> 6;
      case 104, 208 -> 13;
      case 100 -> 25; // one quad each (spec100_c7)
      case 192 -> 12;
      default -> 8;
    };
  }

  /** The wide kernels' slice width: d rounded up to a multiple of 128 (384 .. 1,024). */
  static int wideWidth(int d) {
    return (d + 127) & ~127;
  }

  /**
   * The wide plans' shared memory at slice width {@code width}: {@code slots} slots of one lane
   * group (8 samples, {@code width} features; wide: one per chain warp), the weights, the group
   * sums of a tile (two doubles a feature, four for the bias and loss) and the slots' residuals.
   */
  static int wideSmem(int width, int slots) {
    return slots * 32 * width + 4 * width + 16 * width + 32 + slots * 8 * 4;
  }

  /**
   * The widet kernels' slots at slice width {@code width} (local_sums_sm90.cu, WIDET_KERNEL): as
   * many sub-slices of 32 {@code width} bytes as fit 227 KB beside the weights, the group sums, the
   * residuals and three transaction barriers a slot.
   */
  static int widetSlots(int width) {
    return switch (width) {
      case 384 -> 18;
      case 512 -> 13;
      case 640 -> 10;
      case 768 -> 8;
      case 896 -> 7;
      default -> 6; // 1,024
    };
  }

  /**
   * The widec kernels built (local_sums_sm90.cu, WIDEC_KERNEL), by slice width: "NxW_CxT", clusters
   * of N blocks of W features each (N W = the slice width), C chain warps of T sub-slices a task.
   * The first of a width is the ladder's shape.
   */
  static java.util.List<String> widecShapes(int width) {
    return switch (width) {
      case 1280 -> java.util.List.of("2x640_3x2");
      case 1536 -> java.util.List.of("2x768_2x4");
      case 1792 -> java.util.List.of("2x896_3x2");
      case 2048 ->
          java.util.List.of("2x1024_3x2", "2x1024_2x3"); // 2 x 3: 2.02 where 3 x 2 read 2.07
      default -> java.util.List.of();
    };
  }

  /**
   * The widec kernels' shared memory at block width {@code width}: widet's ({@link #widetSmem}, the
   * same slots) and, a slot, the 8 chain states handed on (32 bytes) and its HAND barrier.
   */
  static int widecSmem(int width) {
    return widetSmem(width) + 40 * widetSlots(width);
  }

  /** The widet kernels' shared memory: {@link #wideSmem} of its slots and their barriers. */
  static int widetSmem(int width) {
    int slots = widetSlots(width);
    return wideSmem(width, slots) + 24 * slots;
  }

  /** The widel kernels' slots (one more than widet's from 640 to 1,024, two at 512). */
  static int widelSlots(int width) {
    return switch (width) {
      case 384 -> 18;
      case 512 -> 14;
      case 640 -> 11;
      case 768 -> 9;
      case 896 -> 8;
      default -> 7; // 1,024
    };
  }

  /** The widel kernels' shared memory: slots, bias and loss group sums, residuals, barriers. */
  static int widelSmem(int width) {
    int slots = widelSlots(width);
    return slots * 32 * width + 32 + slots * 8 * 4 + 24 * slots;
  }

  /** The widel shapes built at slice width {@code width}. */
  static java.util.List<String> widelShapes(int width) {
    return switch (width) {
      case 640 -> java.util.List.of("2x4", "3x2");
      case 768 -> java.util.List.of("2x4");
      case 896 -> java.util.List.of("2x4", "3x2");
      case 1024 -> java.util.List.of("3x2", "2x3");
      default -> java.util.List.of();
    };
  }

  /**
   * The widet shapes built at slice width {@code width} ("CxTS": chain warps x sub-slices a task;
   * "g": the group tree as a butterfly instead of a reduce-scatter, for comparison).
   */
  static java.util.List<String> widetShapes(int width) {
    return switch (width) {
      case 384 -> java.util.List.of("4x2", "4x4", "2x4", "8x1", "1x4", "2x4g");
      case 512 -> java.util.List.of("3x2", "4x2", "2x4", "6x1", "1x4", "2x4g");
      case 640 -> java.util.List.of("3x2", "4x1", "2x4", "4x2", "3x2g");
      case 768 -> java.util.List.of("2x2", "4x1", "4x2", "2x4", "1x4", "2x4g");
      case 896 -> java.util.List.of("3x1", "2x2", "2x3", "1x4", "2x4", "3x2", "3x2g");
      default -> java.util.List.of("3x1", "2x2", "3x2", "6x1", "2x3", "1x4", "2x4", "2x2g", "3x2g");
    };
  }

  /**
   * The ladder's widet shape at slice width {@code width}: {chain warps C, sub-slices a task TS},
   * by measured speed (GpuGradientBench --verify on H200s, 2026-12-01, TB/s, every row bits=ref): 2
   * x 4 at 384 / 512 / 768 (3.83 / 3.85 / 3.82; 4 x 4 3.76 at 384, 4 x 2 3.84 at 512 and 3.76 at
   * 768), 3 x 2 at 640 (3.72); 2 x 2 with the chain rolled (local_sums_sm90.cuh, chain_rolled) at
   * 1,024, 3.89 / 3.94 at d = 1,024 / 1,000 where 3 x 2 read 3.70 / 3.82 (3.84 where it read 3.95
   * on another card), and at 896, 3.43 where 3 x 2 read 3.24, 2 x 3 3.32 and 2 x 2 unrolled 3.18.
   */
  static int[] widetShape(int width) {
    return switch (width) {
      case 384, 512, 768 -> new int[] {2, 4};
      case 896, 1024 -> new int[] {2, 2};
      default -> new int[] {3, 2}; // 640
    };
  }

  /**
   * The wide2 kernels' shape at slice width {@code width} (local_sums.cu, WIDE2_KERNEL): {chain
   * warps C, sub-slices a task TS}; C TS slots of 32 {@code width} bytes fill about 200 KB.
   */
  static int wide2Slots(int width) {
    int[] shape = wide2Shape(width);
    return shape[0] * shape[1];
  }

  static int[] wide2Shape(int width) {
    return switch (width) {
      case 384 -> new int[] {4, 4};
      case 512 -> new int[] {6, 2}; // 3.07 TB/s at d = 512 where 3 x 4 read 2.93 (one H200)
      case 640 -> new int[] {5, 2};
      case 768 -> new int[] {4, 2};
      default -> new int[] {3, 2}; // 896, 1,024
    };
  }

  /**
   * Whether x padded to {@code width} features a sample fits in the card's free memory with room to
   * spare (a quarter of what is free, at least 256 MB); where it does not, the default plan is one
   * that keeps x unpadded.
   */
  static boolean paddedFits(long slices, int width, long freeBytes) {
    long bytes = 4L * 32 * slices * width;
    return bytes <= freeBytes - Math.max(256L << 20, freeBytes / 4);
  }

  /**
   * The spec plan's shared memory: its slots (one slice of {@code width} features in the quad
   * layout and its 32 residuals each), or its pipe fallback's, whichever is more.
   */
  static int specSmem(int d, int width) {
    return Math.max(pipeSmem(d, 2), SPEC_SLOTS * (128 * width + 128));
  }

  static int largeSmem(int d, int p) {
    return 4 * (d + p * 32 + 2 * p * d * 32);
  }

  static int pipeSmem(int d, int p) {
    return 4 * (d + 2 * p * 32 + 3 * p * d * 32);
  }

  /** The flow plan's shared memory: enough for the flow kernel and for its pipe fallback. */
  static int flowSmem(int d, int p) {
    int slack =
        32 * pow2AtLeast((d + 31) / 32) - d; // features the unguarded accumulation reads past d
    return Math.max(pipeSmem(d, p), 4 * (3 * p * d * 32 + 2 * p * 32 + slack * 32));
  }

  /**
   * The quad plan's shared memory (P = 2): enough for the quad kernel and for its pipe fallback.
   */
  static int quadSmem(int d) {
    int d4 = (d + 3) & ~3;
    int slack =
        32 * pow2AtLeast((d + 31) / 32) - d4; // features the unguarded accumulation reads past d4
    return Math.max(pipeSmem(d, 2), 4 * (3 * 2 * d4 * 32 + 2 * 2 * 32 + Math.max(0, slack) * 32));
  }

  static int pow2AtLeast(int v) {
    int p = 1;
    while (p < v) {
      p <<= 1;
    }
    return p;
  }
}
