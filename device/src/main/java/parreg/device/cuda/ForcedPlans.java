package parreg.device.cuda;

import static parreg.device.cuda.KernelShapes.DEEPF_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPH_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPT_GRAD_WARPS;
import static parreg.device.cuda.KernelShapes.DEEPT_SHAPES;
import static parreg.device.cuda.KernelShapes.DEEPW_SHAPES;
import static parreg.device.cuda.KernelShapes.NARROW_BLOCK;
import static parreg.device.cuda.KernelShapes.deeptSmem;
import static parreg.device.cuda.KernelShapes.flowSmem;
import static parreg.device.cuda.KernelShapes.largeSmem;
import static parreg.device.cuda.KernelShapes.narrowWidth;
import static parreg.device.cuda.KernelShapes.pipeSmem;
import static parreg.device.cuda.KernelShapes.quadSmem;
import static parreg.device.cuda.KernelShapes.specSmem;
import static parreg.device.cuda.KernelShapes.specWidth;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The plans the benchmark and the parity tests force by name ({@link CudaBackend#openForBenchmark},
 * GpuGradientBench --plan), never the ladder's choice: "small", "large1", "large2", "narrow",
 * "narrow64", "narrow1", "pipe1", "pipe2", "flow1", "flow2", "quad2", "spec", "specW", "specW_rD",
 * "specW_cC", "specW_fPD", "specW_gPD", "specW_mD", "narrowpDM_uU[p]_wW", "split",
 * "splitKxF_uUtT[p][fPD|gPD]", "specpDM_CxAmMB", "deep", "deepx*", "deepw*", "deepf*", "deeptRxS",
 * "deephRxS", "twopass" and the wide family's names ({@link WidePlans#named}). Many of their
 * kernels are in the benchmark's comparison module only. The plans themselves are built by {@link
 * CudaPlan}'s and {@link WidePlans}' builders, as the ladder's are.
 */
final class ForcedPlans {
  private ForcedPlans() {}

  private static final Pattern DEEPT = Pattern.compile("deep([th])(\\d+)x(\\d+)");
  private static final Pattern NARROWP = Pattern.compile("narrowp(\\d+)_u(\\d+)(p?)_w(\\d+)");
  private static final Pattern SPEC_SHAPE = Pattern.compile("spec(\\d+)_([rcfgm])(\\d+)");
  private static final Pattern SPECP = Pattern.compile("specp(\\d+)_(\\d+)x(\\d+)m(\\d+)");

  /**
   * The plan the name {@code want} gives for {@code t}.
   *
   * @throws IllegalArgumentException an unknown name, or a plan that does not fit d on this card
   */
  static CudaPlan named(String want, CudaPlan.Target t) {
    int d = t.d();
    boolean ordered = t.ordered();
    int smemOptin = t.smemOptin();
    CudaPlan wide = WidePlans.named(want, d, ordered, t.hopper(), smemOptin);
    if (wide != null) {
      return wide;
    }
    if (want.startsWith("specp")) {
      return specpPlan(d, want, ordered);
    }
    Matcher dt = DEEPT.matcher(want);
    if (dt.matches()) {
      return deept(t, want, dt);
    }
    if (want.startsWith("split")) {
      return CudaPlan.splitPlan(d, want, ordered);
    }
    Matcher np = NARROWP.matcher(want);
    if (np.matches()) {
      int dm = Integer.parseInt(np.group(1));
      if (d <= 16 || d > dm || !ordered) {
        throw new IllegalArgumentException(
            "plan " + want + " does not fit d=" + d + " (needs 16 < d <= " + dm + ", ordered)");
      }
      return CudaPlan.narrowp(
          d,
          new CudaPlan.NarrowpShape(
              dm,
              Integer.parseInt(np.group(2)),
              !np.group(3).isEmpty(),
              Integer.parseInt(np.group(4))));
    }
    Matcher sv = SPEC_SHAPE.matcher(want);
    if (sv.matches()) {
      CudaPlan base = named("spec" + sv.group(1), t);
      return CudaPlan.specShape(base, sv.group(2).charAt(0), Integer.parseInt(sv.group(3)));
    }
    switch (want) {
      case "small" -> {
        return CudaPlan.small(t);
      }
      case "narrow", "narrow64" -> {
        // the narrowest of 24, 32, 48 features that holds d (narrow-48, narrow64: the comparison
        // module's)
        int dm = want.equals("narrow64") ? 64 : narrowWidth(d);
        if (d <= 16 || d > dm) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " (needs 16 < d <= " + dm + ")");
        }
        return CudaPlan.narrow(t, dm);
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
            KernelFamily.NARROW,
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
        return CudaPlan.large(t, p);
      }
      case "pipe1", "pipe2" -> {
        int p = want.equals("pipe2") ? 2 : 1;
        if (d > 256 || pipeSmem(d, p) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card");
        }
        return CudaPlan.pipe(t, p);
      }
      case "flow1", "flow2" -> {
        int p = want.equals("flow2") ? 2 : 1;
        if (d > 256 || flowSmem(d, p) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card");
        }
        return CudaPlan.flow(t, p);
      }
      case "quad2" -> {
        if (d <= 64 || d > 256 || quadSmem(d) > smemOptin) {
          throw new IllegalArgumentException(
              "plan quad2 does not fit d=" + d + " on this card (needs 64 < d <= 256)");
        }
        return CudaPlan.quad(t);
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
        return CudaPlan.spec(t, width);
      }
      case "deep" -> {
        requireDeep(want, d, ordered);
        return CudaPlan.deep(t);
      }
      case "deepx", "deepxb", "deepxc", "deepxd" -> {
        requireDeep(want, d, ordered);
        return CudaPlan.deepx(t, want);
      }
      case "deepw", "deepwb", "deepwc", "deepwd", "deepwe" -> {
        // deepf with whole-slice chains on all 32 lanes and few chain warps an SM (a tight window
        // between the read and the L2 re-read); one block an SM
        requireDeep(want, d, ordered);
        int[] shape = DEEPW_SHAPES.get(want);
        return new CudaPlan(
            want,
            KernelFamily.DEEPW,
            want + "_o",
            null,
            null,
            32 * (shape[0] + shape[1]),
            16 * ((d + 3) / 4), // the weights
            d,
            false);
      }
      case "deepf", "deepfb", "deepfc", "deepfd" -> {
        // deep's two passes fused (x re-read from L2): no faster than deep on an H200 (1.52 TB/s
        // at d = 2,048 and 4,096 where deep read 1.51 / 1.53; GpuGradientBench --verify,
        // 2026-12-01); deepfb, deepfc, deepfd: other shapes
        requireDeep(want, d, ordered);
        int[] shape = DEEPF_SHAPES.get(want);
        return new CudaPlan(
            want,
            KernelFamily.DEEPF,
            want.equals("deepf") ? "deepf_o" : want + "_o",
            null,
            null,
            32 * (shape[0] + shape[1]),
            16 * ((d + 3) / 4) + 16, // the weights, the chain warps' tickets
            d,
            false);
      }
      case "twopass" -> {
        return CudaPlan.twopass(t);
      }
      default -> throw new IllegalArgumentException("unknown plan " + want);
    }
  }

  private static void requireDeep(String want, int d, boolean ordered) {
    if (d <= 1024 || !ordered) {
      throw new IllegalArgumentException(
          "plan "
              + want
              + " does not fit d="
              + d
              + (ordered ? " (needs d > 1024)" : " (it has no unordered variant)"));
    }
  }

  /**
   * deept: the copy engine feeds deepxb's chain warp through a ring of S chunks of R rows; deeph:
   * the same with half-slice chains (16 samples, R half-rows a chunk) (local_sums_sm90.cu,
   * DEEPT_KERNEL / DEEPH_KERNEL); batches that do not start on a slice boundary run deepxb_o.
   */
  private static CudaPlan deept(CudaPlan.Target t, String want, Matcher dt) {
    int d = t.d();
    boolean half = dt.group(1).equals("h");
    String shapeName = dt.group(2) + "x" + dt.group(3);
    int rows = Integer.parseInt(dt.group(2));
    int slots = Integer.parseInt(dt.group(3));
    int smem = deeptSmem(d, half ? rows / 2 : rows, slots);
    if (d <= 1024
        || !t.ordered()
        || !t.hopper()
        || !(half ? DEEPH_SHAPES : DEEPT_SHAPES).contains(shapeName)
        || smem > t.smemOptin()) {
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
        KernelFamily.DEEPT,
        "deep" + dt.group(1) + "_o_" + shapeName,
        "deepxb_o",
        null,
        32 * (2 + DEEPT_GRAD_WARPS),
        smem,
        d,
        false);
  }

  /**
   * A plan of spec's block on the plain slice layout (local_sums.cuh, specp_body):
   * "specpDM_CxAmMB", at most DM features, C chain warps (a slot each), A accumulating warps, MB
   * blocks an SM; x stays in the plain slice layout (as split reads it), and batches that do not
   * start on a slice boundary run the split kernel of d ({@link KernelShapes#splitShape}), the
   * fallback.
   */
  static CudaPlan specpPlan(int d, String want, boolean ordered) {
    Matcher m = SPECP.matcher(want);
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
    CudaPlan fallback = CudaPlan.specpFallback(d);
    int rows = (8 * dm + 31) / 32; // 16-byte rows of 32 lanes a slice holds at most
    return new CudaPlan(
        "specp-" + want.substring(5),
        KernelFamily.SPECP,
        "specp_o_" + want.substring(5),
        fallback.main(),
        null,
        32 * (c + a),
        Math.max(c * (512 * rows + 128), fallback.smem()),
        d,
        false);
  }
}
