package parreg.device.cuda;

import static parreg.device.cuda.KernelShapes.DEEPF_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPH_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPT_GRAD_WARPS;
import static parreg.device.cuda.KernelShapes.DEEPT_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPW_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPX_GRAD_WARPS;
import static parreg.device.cuda.KernelShapes.DEEPX_SLOTS;
import static parreg.device.cuda.KernelShapes.NARROW_BLOCK;
import static parreg.device.cuda.KernelShapes.SPEC_CHAIN_WARPS;
import static parreg.device.cuda.KernelShapes.SPEC_SLOTS;
import static parreg.device.cuda.KernelShapes.WIDE_CHAIN_WARPS;
import static parreg.device.cuda.KernelShapes.deeptSmem;
import static parreg.device.cuda.KernelShapes.deepxSmem;
import static parreg.device.cuda.KernelShapes.flowSmem;
import static parreg.device.cuda.KernelShapes.largeSmem;
import static parreg.device.cuda.KernelShapes.narrowWidth;
import static parreg.device.cuda.KernelShapes.paddedFits;
import static parreg.device.cuda.KernelShapes.pipeSmem;
import static parreg.device.cuda.KernelShapes.pow2AtLeast;
import static parreg.device.cuda.KernelShapes.quadSmem;
import static parreg.device.cuda.KernelShapes.specAccWarps;
import static parreg.device.cuda.KernelShapes.specSmem;
import static parreg.device.cuda.KernelShapes.specWidth;
import static parreg.device.cuda.KernelShapes.splitShape;
import static parreg.device.cuda.KernelShapes.wide2Slots;
import static parreg.device.cuda.KernelShapes.wideSmem;
import static parreg.device.cuda.KernelShapes.wideWidth;
import static parreg.device.cuda.KernelShapes.widecShapes;
import static parreg.device.cuda.KernelShapes.widecSmem;
import static parreg.device.cuda.KernelShapes.widetSmem;

/**
 * Which kernels compute a partition's local sums on a given card, and with what shape: the plan
 * ladder and the forced plans ({@link WidePlans} builds the wide family's plans, {@link
 * KernelShapes} holds the shapes built, the slice widths and the shared memory each needs). Chosen
 * once per partition from d, the card's opt-in shared memory per block and its free memory; a pure
 * function of those (no driver call), so the ladder is tested without a card.
 *
 * <p>The ladder, first that fits: {@code small} (d &le; 16), {@code spec48_m6} (43 &le; d &le; 48,
 * ordered, where x padded to 48 fits), {@code narrowp} (16 &lt; d &le; 32, ordered; a warp per
 * tile, the accumulators in registers; and 32 &lt; d &le; 48, ordered, where {@code spec48_m6} does
 * not run), {@code spec24} (16 &lt; d &le; 24, unordered, where its slots and x padded to 24 fit),
 * {@code narrow} (16 &lt; d &le; 32, unordered), {@code spec} (32 &lt; d &le; 256, where its slots
 * fit and x padded to its slice width fits in free memory; ordered, its shapes {@code spec64_m4} at
 * 49..64, {@code spec100_c7} at 65..100 and {@code spec104_c7} at 101..104 where their slots fit),
 * {@code quad2} (64 &lt; d &le; 256), {@code flow2}, {@code flow1}, {@code pipe2}, {@code pipe1},
 * {@code large1} (d &le; 256, by shared memory), on cards of compute capability 9.0 and newer
 * {@code widet} (256 &lt; d &le; 1,024, ordered; their kernels are local_sums_sm90.cu's), else
 * {@code wide2} (256 &lt; d &le; 896), {@code widea} (896 &lt; d &le; 1,024) or {@code wide} (256
 * &lt; d &le; 1,024; ordered, where their slots fit and x padded to the slice width fits in free
 * memory), on cards of compute capability 9.0 {@code widec} (1,152 &lt; d &le; 1,280 and 1,408 &lt;
 * d &le; 1,536, and 1,664 &lt; d &le; 1,792 and 1,920 &lt; d &le; 2,048 from 512 tiles on, ordered:
 * clusters of two widet blocks, where x padded to the slice width fits), {@code deepxb} (d &gt;
 * 1,024, ordered, where its ring fits), {@code deep} (d &gt; 1,024, ordered), {@code twopass} (any
 * d). docs/GPU.md describes each; local_sums.cu holds their kernels. The benchmark and the parity
 * tests may force a plan by name, including {@code large2}, {@code widep}, {@code narrow} at 32
 * &lt; d &le; 48, {@code narrow64}, {@code narrow1}, {@code deepf}, {@code deepw} and the other
 * {@code deepx} shapes, whose kernels only the comparison module has, and on cards of compute
 * capability 9.0 {@code deeptRxS} / {@code deephRxS} (local_sums_sm90.cu, slower than deepxb on an
 * H200).
 *
 * @param name the plan as reported ("spec-64", "quad-8x2", "small-16", "twopass", ...)
 * @param family small, narrow, large, pipe, flow, quad, spec, wide, widec, deep or twopass: how the
 *     backend launches it
 * @param main the kernel that computes the tile sums (twopass, deep: the residual pass)
 * @param fallback flow, quad, spec: the pipe kernel for batches that do not start on a slice
 *     boundary; wide: the residual pass of the two passes that such batches run; null otherwise
 * @param grad twopass, deep and wide: the gradient pass; null otherwise
 * @param block threads per block of {@code main}
 * @param smem dynamic shared memory of {@code main} (and of {@code fallback}), bytes
 * @param sliceFeatures features one resident 32-sample slice holds: d in the plain slice layout,
 *     more where the quad layout pads d (to 4, or to the spec slice width)
 * @param quads whether x is resident in the quad layout (four features of a sample together; wide:
 *     in lane groups of 8, the octet layout of {@link ResidentLayout})
 */
record CudaPlan(
    String name,
    String family,
    String main,
    String fallback,
    String grad,
    int block,
    int smem,
    int sliceFeatures,
    boolean quads) {
  /**
   * The plan for {@code d} features and {@code slices} 32-sample slices on a card with {@code
   * smemOptin} bytes of opt-in shared memory and {@code freeBytes} of free memory.
   *
   * @param ordered false: the benchmark's unordered (atomic) kernels of the same plan
   * @param forced a plan name to use instead of the ladder's choice ("small", "large1", "large2",
   *     "narrow", "narrow64", "narrow1", "pipe1", "pipe2", "flow1", "flow2", "quad2", "spec",
   *     "spec64", "spec128", "spec192", "spec256", "wide", "widep", "deep", "twopass", "split",
   *     "splitKxF_uUtT[p][fPD|gPD]", "specW_rD", "specW_cC", "specW_fPD", "specW_gPD", "specW_mD",
   *     "widet", "widetCxT", "widelCxT"), or null
   * @throws IllegalArgumentException a forced plan that does not fit d on this card
   */
  static CudaPlan choose(
      int d, long slices, int smemOptin, long freeBytes, boolean ordered, String forced) {
    return choose(d, slices, smemOptin, freeBytes, ordered, forced, false);
  }

  /**
   * As {@link #choose(int, long, int, long, boolean, String)}, on a card that does ({@code hopper})
   * or does not run the kernels of compute capability 9.0 (CudaCard.SM90_PTX_RESOURCE).
   */
  static CudaPlan choose(
      int d,
      long slices,
      int smemOptin,
      long freeBytes,
      boolean ordered,
      String forced,
      boolean hopper) {
    String pfx = ordered ? "_o_" : "_a_";
    String want =
        forced != null ? forced : ladder(d, slices, smemOptin, freeBytes, ordered, hopper);
    CudaPlan wide = WidePlans.named(want, d, ordered, hopper, smemOptin);
    if (wide != null) {
      return wide;
    }
    if (want.startsWith("specp")) {
      return specpPlan(d, want, ordered);
    }
    java.util.regex.Matcher dt =
        java.util.regex.Pattern.compile("deep([th])(\\d+)x(\\d+)").matcher(want);
    if (dt.matches()) {
      // deept: the copy engine feeds deepxb's chain warp through a ring of S chunks of R rows;
      // deeph: the same with half-slice chains (16 samples, R half-rows a chunk)
      // (local_sums_sm90.cu, DEEPT_KERNEL / DEEPH_KERNEL); batches that do not start on a slice
      // boundary run deepxb_o (fallback)
      boolean half = dt.group(1).equals("h");
      String shapeName = dt.group(2) + "x" + dt.group(3);
      int rows = Integer.parseInt(dt.group(2));
      int slots = Integer.parseInt(dt.group(3));
      int smem = deeptSmem(d, half ? rows / 2 : rows, slots);
      if (d <= 1024
          || !ordered
          || !hopper
          || !(half ? DEEPH_SHAPES : DEEPT_SHAPES).contains(shapeName)
          || smem > smemOptin) {
        throw new IllegalArgumentException(
            "plan "
                + want
                + " does not fit d="
                + d
                + " on this card (needs d > 1024, ordered, compute capability 9.0, its ring and"
                + " one of the shapes "
                + (half ? DEEPH_SHAPES : DEEPT_SHAPES)
                + ")");
      }
      return new CudaPlan(
          "deep" + dt.group(1) + "-" + shapeName,
          "deept",
          "deep" + dt.group(1) + "_o_" + shapeName,
          "deepxb_o",
          null,
          32 * (2 + DEEPT_GRAD_WARPS),
          smem,
          d,
          false);
    }
    if (want.startsWith("split")) {
      return splitPlan(d, want, ordered);
    }
    java.util.regex.Matcher np =
        java.util.regex.Pattern.compile("narrowp(\\d+)_u(\\d+)(p?)_w(\\d+)").matcher(want);
    if (np.matches()) {
      // narrowp_body: a warp per tile with DM accumulators in registers, the weights by value, U
      // slices a group (p: the next group loaded ahead), blocks of one warp and W of them an SM
      // (the kernel's register cap); the ladder's shapes (NARROWP_17 .. NARROWP_48) and forced
      // comparison shapes; launched as narrow (a balanced grid, the weights by value)
      int dm = Integer.parseInt(np.group(1));
      if (d <= 16 || d > dm || !ordered) {
        throw new IllegalArgumentException(
            "plan " + want + " does not fit d=" + d + " (needs 16 < d <= " + dm + ", ordered)");
      }
      String shape = dm + "_u" + np.group(2) + np.group(3) + "_w" + np.group(4);
      return new CudaPlan(
          "narrowp-" + shape, "narrow", "narrowp_o_" + shape, null, null, 32, 0, d, false);
    }
    java.util.regex.Matcher sv =
        java.util.regex.Pattern.compile("spec(\\d+)_([rcfgm])(\\d+)").matcher(want);
    if (sv.matches()) {
      // comparison shapes of spec at width W: another register ring (rD), C chain warps (cC), or
      // the L2 prefetch of the slice PD turns ahead in 128- (fPD) or 32-byte lines (gPD), or two
      // blocks an SM with a ring of D (mD)
      CudaPlan base = choose(d, slices, smemOptin, freeBytes, ordered, "spec" + sv.group(1));
      int v = Integer.parseInt(sv.group(3));
      String sfx = "_" + sv.group(2) + v;
      return new CudaPlan(
          base.name() + sfx,
          base.family(),
          base.main() + sfx,
          base.fallback(),
          null,
          sv.group(2).equals("c") ? base.block() + 32 * (v - SPEC_CHAIN_WARPS) : base.block(),
          // C > 6 chain warps: C slots (a slot has one chain warp), else the 6 of the base shape
          sv.group(2).equals("c") && v > SPEC_SLOTS
              ? Math.max(base.smem(), v * (128 * base.sliceFeatures() + 128))
              : base.smem(),
          base.sliceFeatures(),
          true);
    }
    int k = pow2AtLeast((d + 31) / 32);
    switch (want) {
      case "small" -> {
        if (d > 16) {
          throw new IllegalArgumentException("plan small needs d <= 16");
        }
        int dm = pow2AtLeast(d);
        return new CudaPlan(
            "small-" + dm, "small", "small" + pfx + dm, null, null, 256, 0, d, false);
      }
      case "narrow", "narrow64" -> {
        // the narrowest of 24, 32, 48 features that holds d (narrow-48, narrow64: the comparison
        // module's)
        int dm = want.equals("narrow64") ? 64 : narrowWidth(d);
        if (d <= 16 || d > dm) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " (needs 16 < d <= " + dm + ")");
        }
        return new CudaPlan(
            "narrow-" + dm, "narrow", "narrow" + pfx + dm, null, null, NARROW_BLOCK, 0, d, false);
      }
      case "narrow1" -> {
        // the comparison module's narrow kernels at one slice a load (16 < d <= 32)
        if (d <= 16 || d > 32 || !ordered) {
          throw new IllegalArgumentException(
              "plan narrow1 does not fit d=" + d + " (needs 16 < d <= 32, ordered)");
        }
        int dm = narrowWidth(d);
        return new CudaPlan(
            "narrow1-" + dm,
            "narrow",
            "narrow_o_" + dm + "_1",
            null,
            null,
            NARROW_BLOCK,
            0,
            d,
            false);
      }
      case "large1", "large2" -> {
        int p = want.equals("large2") ? 2 : 1;
        if (d > 256 || largeSmem(d, p) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card");
        }
        return new CudaPlan(
            "large-" + k + "x" + p,
            "large",
            "large" + pfx + k + "_" + p,
            null,
            null,
            1024,
            largeSmem(d, p),
            d,
            false);
      }
      case "pipe1", "pipe2" -> {
        int p = want.equals("pipe2") ? 2 : 1;
        if (d > 256 || pipeSmem(d, p) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card");
        }
        return new CudaPlan(
            "pipe-" + k + "x" + p,
            "pipe",
            "pipe" + pfx + k + "_" + p,
            null,
            null,
            1024,
            pipeSmem(d, p),
            d,
            false);
      }
      case "flow1", "flow2" -> {
        int p = want.equals("flow2") ? 2 : 1;
        if (d > 256 || flowSmem(d, p) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card");
        }
        return new CudaPlan(
            "flow-" + k + "x" + p,
            "flow",
            "flow" + pfx + k + "_" + p,
            "pipe" + pfx + k + "_" + p,
            null,
            1024,
            flowSmem(d, p),
            d,
            false);
      }
      case "quad2" -> {
        if (d <= 64 || d > 256 || quadSmem(d) > smemOptin) {
          throw new IllegalArgumentException(
              "plan quad2 does not fit d=" + d + " on this card (needs 64 < d <= 256)");
        }
        return new CudaPlan(
            "quad-" + k + "x2",
            "quad",
            "quad" + pfx + k + "_2",
            "pipeq" + pfx + k + "_2",
            null,
            1024,
            quadSmem(d),
            (d + 3) & ~3,
            true);
      }
      case "spec",
          "spec24",
          "spec32",
          "spec48",
          "spec64",
          "spec100",
          "spec104",
          "spec128",
          "spec192",
          "spec208",
          "spec256" -> {
        // the narrowest slice width that holds d (or the one asked for)
        int width = want.equals("spec") ? specWidth(d) : Integer.parseInt(want.substring(4));
        if (d <= 16 || d > width || specSmem(d, width) > smemOptin) {
          throw new IllegalArgumentException(
              "plan "
                  + want
                  + " does not fit d="
                  + d
                  + " on this card (needs 16 < d <= "
                  + Math.min(width, 256)
                  + ")");
        }
        return new CudaPlan(
            "spec-" + width,
            "spec",
            "spec" + pfx + width,
            width % 32 == 0 ? "pipes" + pfx + width / 32 + "_2" : "pipes" + pfx + "w" + width,
            null,
            32 * (SPEC_CHAIN_WARPS + specAccWarps(width)),
            specSmem(d, width),
            width,
            true);
      }
      case "deep" -> {
        if (d <= 1024 || !ordered) {
          throw new IllegalArgumentException(
              "plan deep does not fit d="
                  + d
                  + (ordered ? " (needs d > 1024)" : " (it has no unordered variant)"));
        }
        return new CudaPlan("deep", "deep", "deepr_o", null, "deepg_o", 256, 4 * d, d, false);
      }
      case "deepx", "deepxb", "deepxc", "deepxd" -> {
        // one chain warp an SM fed by 6 loader warps through a shared-memory ring; one block an
        // SM, launched as deepw
        if (d <= 1024 || !ordered) {
          throw new IllegalArgumentException(
              "plan "
                  + want
                  + " does not fit d="
                  + d
                  + (ordered ? " (needs d > 1024)" : " (it has no unordered variant)"));
        }
        return new CudaPlan(
            want,
            "deepw",
            want + "_o",
            null,
            null,
            32 * (1 + DEEPX_SLOTS + DEEPX_GRAD_WARPS.get(want)),
            deepxSmem(d), // the weights, the ring
            d,
            false);
      }
      case "deepw", "deepwb", "deepwc", "deepwd", "deepwe" -> {
        // deepf with whole-slice chains on all 32 lanes and few chain warps an SM (a tight window
        // between the read and the L2 re-read); one block an SM
        if (d <= 1024 || !ordered) {
          throw new IllegalArgumentException(
              "plan "
                  + want
                  + " does not fit d="
                  + d
                  + (ordered ? " (needs d > 1024)" : " (it has no unordered variant)"));
        }
        int[] shape = DEEPW_SHAPES.get(want);
        return new CudaPlan(
            want,
            "deepw",
            want + "_o",
            null,
            null,
            32 * (shape[0] + shape[1]),
            16 * ((d + 3) / 4), // the weights
            d,
            false);
      }
      case "deepf", "deepfb", "deepfc", "deepfd" -> {
        // deep's two passes fused (x re-read from L2): comparison module only, no faster than
        // deep on an H200 (1.52 TB/s at d = 2,048 and 4,096 where deep read 1.51 / 1.53;
        // GpuGradientBench --verify, 2026-12-01); deepfb, deepfc, deepfd: other shapes
        if (d <= 1024 || !ordered) {
          throw new IllegalArgumentException(
              "plan "
                  + want
                  + " does not fit d="
                  + d
                  + (ordered ? " (needs d > 1024)" : " (it has no unordered variant)"));
        }
        int[] shape = DEEPF_SHAPES.get(want);
        return new CudaPlan(
            want,
            "deepf",
            want.equals("deepf") ? "deepf_o" : want + "_o",
            null,
            null,
            32 * (shape[0] + shape[1]),
            16 * ((d + 3) / 4) + 16, // the weights, the chain warps' tickets
            d,
            false);
      }
      case "twopass" -> {
        String sfx = ordered ? "_o" : "_a";
        return new CudaPlan(
            "twopass", "twopass", "resid" + sfx, null, "grad" + sfx, 256, 0, d, false);
      }
      default -> throw new IllegalArgumentException("unknown plan " + want);
    }
  }

  /** The product's choice: the first plan of the ladder that fits. */
  private static String ladder(
      int d, long slices, int smemOptin, long freeBytes, boolean ordered, boolean hopper) {
    if (d <= 16) {
      return "small";
    } else if (d >= SPEC48_FROM
        && d <= 48
        && ordered
        && specSmem(d, 48) <= smemOptin
        && paddedFits(slices, 48, freeBytes)) {
      // spec at 48 features, two blocks an SM: 3.83 TB/s at d = 48 where split-4x12_u2t2p read
      // 3.15 and spec-48 2.86 (GpuGradientBench --verify, one H200, 2026-12-01, every row
      // bits=ref)
      return "spec48_m6";
    } else if (d <= 24 && ordered) {
      // a warp per tile, every accumulator in registers, the weights by value, a group of slices
      // loaded ahead (GpuGradientBench --verify on three H200s, 2026-12-01, every row bits=ref):
      // narrowp-17_u4_w16 3.91 / 3.94 TB/s at d = 17 where split-2x9_u8t4 read 3.05 / 3.10;
      // narrowp-20_u2p_w12 3.71-3.99 at d = 18..20 where split-2x9_u8t4 read 2.94 and
      // specp-24_6x3m3 3.18-3.45; narrowp-24_u1p_w16 (one slice loaded ahead, 16 warps an SM)
      // 3.69-3.97 at 21..24 where specp-24_6x3m3 read 3.38-3.82 (a tie at 24)
      return d <= 17 ? NARROWP_17 : d <= 20 ? NARROWP_20 : NARROWP_24;
    } else if (d <= 32 && ordered) {
      // the same body at up to 32 features, one slice loaded ahead, 12 warps an SM (168
      // registers): narrowp-32_u1p_w12 3.84 TB/s at d = 32 where split-2x16_u2t4p read 3.24 /
      // 3.27 on two H200s, and 3.48 / 3.59 / 3.77 at d = 25 / 28 / 32 where it read 2.80 / 2.88 /
      // 3.02 on a third (GpuGradientBench --verify, 2026-12-01, every row bits=ref)
      return NARROWP_32;
    } else if (d <= 48 && ordered) {
      // narrowp at 48 features, one slice loaded ahead, 8 warps an SM (254 registers, no spill):
      // 2.97 / 3.24 / 3.22 / 3.52 TB/s at d = 33 / 36 / 40 / 42 where split-4x12_u2t2p (now a
      // forced plan) read 2.39 / 2.81 / 2.98 / 2.96 (GpuGradientBench --verify, one H200,
      // 2026-12-01, every row bits=ref). narrowp-40_u1p_w8 at 33..40 stays a comparison kernel:
      // it won by 9-10 % when it ran second but by 1-3 % when it ran first, and lost at 38
      return NARROWP_48;
    } else if (d <= 24 && specSmem(d, 24) <= smemOptin && paddedFits(slices, 24, freeBytes)) {
      // spec at 24 features (the unordered ladder): 2.25 / 3.07 TB/s at d = 17 / 24 where
      // narrow-24 read 2.08-2.17 / 2.70-2.75 (one H200, 2026-11-30; at d = 32 spec-32 read 2.34,
      // narrow-32 2.37)
      return "spec24";
    } else if (d <= 32) {
      // narrow up to 32 only (the unordered ladder), by measured speed (one H200, 2026-11-30, TB/s
      // of x and y read): d = 17: narrow-24 2.11, spec-64 1.02; 24: 2.74 / 1.39; 32: narrow-32
      // 2.48, spec-64 1.85; but 48: narrow-48 1.93, spec-64 2.66. spec-64 reads 64 features a
      // sample whatever d, so its speed grows as d/64 and it overtakes narrow between 32 and 48
      // (narrow-48 is a comparison kernel of the bench module)
      return "narrow";
    } else if (d > 64
        && d <= 100
        && ordered
        && Math.max(specSmem(d, 100), 7 * (128 * 100 + 128)) <= smemOptin
        && paddedFits(slices, 100, freeBytes)) {
      // slice width 100, 7 chain warps and slots: 3.55 TB/s at d = 100 where spec-104_c7 read
      // 3.29 (one H200, 2026-12-01, bits=ref; on another card 3.42 / 3.35, then within 3 % of
      // each other); at d = 65 / 80 2.41 / 2.86 where it read 2.17 / 2.66: below 97 it reads 4 %
      // fewer padding bytes than width 104
      return "spec100_c7";
    } else if (d <= 256
        && specSmem(d, specWidth(d)) <= smemOptin
        && paddedFits(slices, specWidth(d), freeBytes)) {
      // the ordered shapes (one H200, 2026-12-01, TB/s, bits=ref): at width 64 two blocks an SM
      // with a ring of 4 quads, 3.84 at d = 64 where spec-64 read 3.31; at width 104 seven chain
      // warps and slots, 3.47 at d = 100 where spec-104 read 3.08
      int width = specWidth(d);
      if (ordered && width == 64) {
        return "spec64_m4";
      } else if (ordered && width == 104 && 7 * (128 * width + 128) <= smemOptin) {
        return "spec104_c7";
      }
      return "spec";
    } else if (d > 64 && d <= 256 && quadSmem(d) <= smemOptin) {
      return "quad2";
    } else if (d <= 256 && flowSmem(d, 2) <= smemOptin) {
      return "flow2";
    } else if (d <= 256 && flowSmem(d, 1) <= smemOptin) {
      return "flow1";
    } else if (d <= 256 && pipeSmem(d, 2) <= smemOptin) {
      return "pipe2";
    } else if (d <= 256 && pipeSmem(d, 1) <= smemOptin) {
      return "pipe1";
    } else if (d <= 256 && largeSmem(d, 1) <= smemOptin) {
      return "large1";
    } else if (hopper
        && d > 256
        && d <= 1024
        && ordered
        && widetSmem(wideWidth(d)) <= smemOptin
        && paddedFits(slices, wideWidth(d), freeBytes)) {
      // the copy engine stages the slots: widet 3.65 / 3.78 / 3.60 / 3.66 TB/s at d = 384 / 512 /
      // 640 / 768 where wide2 read 3.19 / 3.09 / 2.83 / 2.73 (one H200, 2026-12-01, every row
      // bits=ref); its shapes by width in KernelShapes.widetShape
      return "widet";
    } else if (d > 256
        && d <= 1024
        && ordered
        && wideSmem(wideWidth(d), WIDE_CHAIN_WARPS) <= smemOptin
        && paddedFits(slices, wideWidth(d), freeBytes)) {
      // by measured speed (one H200, 2026-11-30, TB/s, every row bits=ref): wide2 at widths
      // 384..896 (3.19 / 2.94 / 2.82 / 2.73 / 1.92 where wide read 2.26 / 2.22 / 2.14 / 2.33 /
      // 1.79), widea at 1,024 (2.44; wide 2.19, wide2 2.15)
      int width = wideWidth(d);
      return width <= 896 && wideSmem(width, wide2Slots(width)) <= smemOptin
          ? "wide2"
          : width == 1024 ? "widea" : "wide";
    } else if (hopper
        && d > 1024
        && ordered
        && WidePlans.widecLadder(wideWidth(d), slices)
        && widecSmem(WidePlans.widecBlockWidth(widecShapes(wideWidth(d)).get(0))) <= smemOptin
        && paddedFits(slices, wideWidth(d), freeBytes)) {
      // clusters of 2 widet blocks, x read once: widec-2x640_3x2 2.82 at d = 1,280 and
      // widec-2x768_2x4 2.40-2.44 at 1,536 where deepxb read 1.94-2.00 in the same invocations
      // (three H200s, 2026-12-01, every row bits=ref); at 1,792 and 2,048 on partitions of 512
      // tiles or more (WidePlans.widecLadder)
      return "widec";
    } else if (d > 1024 && ordered && deepxSmem(d) <= smemOptin) {
      // by measured speed (one H200, 2026-12-01, TB/s, every row bits=ref): deepxb 2.14 / 2.08 /
      // 2.06 / 1.98 at d = 1,025 / 1,500 / 2,048 / 4,096 where deep read 1.58 / 1.59 / 1.54 / 1.53
      return "deepxb";
    } else if (d > 1024 && ordered) {
      return "deep";
    }
    return "twopass";
  }

  /**
   * A split-chain plan (local_sums.cuh, split_body): "split" is the ladder's shape for d ({@link
   * #splitShape}), "splitKxF_uUtT[p]" a named shape (K warps a team of F features each at most, U
   * slices a group, T teams a block, p: the next group loaded ahead), whose kernel {@code
   * split_o_KxF_uUtT[p]} may be in the comparison module only.
   */
  static CudaPlan splitPlan(int d, String want, boolean ordered) {
    String shape = want.equals("split") ? splitShape(d) : want.substring(5);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d+)x(\\d+)_u(\\d+)t(\\d+)p?(?:[fg]\\d+)?")
            .matcher(shape == null ? "" : shape);
    if (!m.matches()) {
      throw new IllegalArgumentException("plan " + want + " does not fit d=" + d);
    }
    int kw = Integer.parseInt(m.group(1));
    int f = Integer.parseInt(m.group(2));
    int u = Integer.parseInt(m.group(3));
    int teams = Integer.parseInt(m.group(4));
    if (!ordered || d < kw || d > kw * f) {
      throw new IllegalArgumentException(
          "plan "
              + want
              + " does not fit d="
              + d
              + (ordered ? " (needs " + kw + " <= d <= " + kw * f + ")" : " (ordered only)"));
    }
    return new CudaPlan(
        "split-" + shape,
        "split",
        "split_o_" + shape,
        null,
        null,
        32 * kw * teams,
        4 * (teams * kw * u * 32 + kw * f),
        d,
        false);
  }

  /**
   * A plan of spec's block on the plain slice layout (local_sums.cuh, specp_body; a forced plan):
   * "specpDM_CxAmMB", at most DM features, C chain warps (a slot each), A accumulating warps, MB
   * blocks an SM; x stays in the plain slice layout (as split reads it), and batches that do not
   * start on a slice boundary run the split kernel of d ({@link KernelShapes#splitShape}), the
   * fallback, whose block and shared memory {@link #specpFallback} gives.
   */
  static CudaPlan specpPlan(int d, String want, boolean ordered) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("specp(\\d+)_(\\d+)x(\\d+)m(\\d+)").matcher(want);
    if (!m.matches()) {
      throw new IllegalArgumentException("unknown plan " + want);
    }
    int dm = Integer.parseInt(m.group(1));
    int c = Integer.parseInt(m.group(2));
    int a = Integer.parseInt(m.group(3));
    if (!ordered || d <= 16 || d > dm || d > 48) {
      throw new IllegalArgumentException(
          "plan "
              + want
              + " does not fit d="
              + d
              + (ordered ? " (needs 16 < d <= " + dm + ")" : " (ordered only)"));
    }
    CudaPlan fallback = specpFallback(d);
    int rows = (8 * dm + 31) / 32; // 16-byte rows of 32 lanes a slice holds at most
    return new CudaPlan(
        "specp-" + want.substring(5),
        "specp",
        "specp_o_" + want.substring(5),
        fallback.main(),
        null,
        32 * (c + a),
        Math.max(c * (512 * rows + 128), fallback.smem()),
        d,
        false);
  }

  /** The split plan that runs a specp plan's batches at offsets (same layout, same d). */
  static CudaPlan specpFallback(int d) {
    return splitPlan(d, "split", true);
  }

  /**
   * The narrowest d at which the ladder runs {@code spec48_m6} rather than the split chain: it
   * reads x padded to 48 features, so at d its speed in bytes of x is about 3.83 (d + 1) / 49 TB/s
   * (3.83 measured at d = 48 on one H200, 2026-12-01), above split-4x12's 3.15 of the same run from
   * d = 43 (3.44); measured at d = 48 only, the threshold is that estimate.
   */
  static final int SPEC48_FROM = 43;

  /**
   * The ladder's narrowp shapes (kernels in local_sums.cu): at d = 17, 18..20 and 21..24 ({@link
   * #NARROWP_32} at 25..32, {@link #NARROWP_48} at 33..48). The split shape {@code 2x9_u8t4} and
   * {@code specp24_6x3m3} are forced plans, {@code 2x12_u2t4p} specp's fallback.
   */
  static final String NARROWP_17 = "narrowp17_u4_w16";

  static final String NARROWP_20 = "narrowp20_u2p_w12";

  static final String NARROWP_24 = "narrowp24_u1p_w16";

  /** 25..32; {@code split2x16_u2t4p} is a forced plan. */
  static final String NARROWP_32 = "narrowp32_u1p_w12";

  /** 33..48 where {@code spec48_m6} does not run; {@code split4x12_u2t2p} is a forced plan. */
  static final String NARROWP_48 = "narrowp48_u1p_w8";

  /** Teams (of {@code K} warps, one tile at a time each) a block of a split plan. */
  static int splitTeams(CudaPlan plan) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("split_o_(\\d+)x\\d+_u\\d+t(\\d+)p?(?:[fg]\\d+)?")
            .matcher(plan.main());
    if (!m.matches()) {
      throw new IllegalStateException("not a split plan: " + plan.main());
    }
    return Integer.parseInt(m.group(2));
  }
}
