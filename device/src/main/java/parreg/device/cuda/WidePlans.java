package parreg.device.cuda;

import static parreg.device.cuda.KernelShapes.WIDE_ACC_WARPS;
import static parreg.device.cuda.KernelShapes.WIDE_CHAIN_WARPS;
import static parreg.device.cuda.KernelShapes.wide2Shape;
import static parreg.device.cuda.KernelShapes.wideSmem;
import static parreg.device.cuda.KernelShapes.wideWidth;
import static parreg.device.cuda.KernelShapes.widecShapes;
import static parreg.device.cuda.KernelShapes.widecSmem;
import static parreg.device.cuda.KernelShapes.widelShapes;
import static parreg.device.cuda.KernelShapes.widelSmem;
import static parreg.device.cuda.KernelShapes.widetShape;
import static parreg.device.cuda.KernelShapes.widetShapes;
import static parreg.device.cuda.KernelShapes.widetSmem;

/**
 * The plans of the wide family (256 &lt; d &le; 1,024 and, in clusters, above): how a name
 * ("widet", "widel3x2", "widec2x640_3x2", "wide2", ...) becomes a plan at d on a card, and where
 * the ladder runs widec. The wide plans hold x in the octet layout ({@link ResidentLayout}) padded
 * to the slice width; batches that do not start on a slice boundary run the octet two passes.
 * {@link CudaPlan} holds the ladder and the other families; {@link KernelShapes} the shapes built.
 */
final class WidePlans {
  private WidePlans() {}

  /**
   * The wide family's plan that the name {@code want} gives at d: "widet", "widetCxT[g]",
   * "widelCxT" and "widec[NxW_CxT]" (kernels of compute capability 9.0), "wide2", "wide2b",
   * "wide2c", "wide", "widep" and "widea" (any card); null for a name of another family.
   *
   * @throws IllegalArgumentException a wide plan that does not fit d on this card
   */
  static CudaPlan named(String want, int d, boolean ordered, boolean hopper, int smemOptin) {
    if (want.startsWith("widec")) {
      return widecPlan(d, want, ordered, hopper, smemOptin);
    }
    if (want.equals("widet") || WIDET_NAME.matcher(want).matches()) {
      return widetPlan(d, want, ordered, hopper, smemOptin);
    }
    switch (want) {
      case "wide2", "wide2b", "wide2c" -> {
        // wide2: C chain warps of TS sub-slices each (wide2Shape); the comparison module's wide2b
        // (3 x 4 at width 512, 2 x 4 at 768) and wide2c (7 x 2 at 384, 7 x 1 at 768)
        int width = wideWidth(d);
        int[] shape =
            switch (want) {
              case "wide2b" ->
                  width == 512 ? new int[] {3, 4} : width == 768 ? new int[] {2, 4} : null;
              case "wide2c" ->
                  width == 384 ? new int[] {7, 2} : width == 768 ? new int[] {7, 1} : null;
              default -> wide2Shape(width);
            };
        int slots = shape == null ? 0 : shape[0] * shape[1];
        if (d <= 256
            || d > 1024
            || !ordered
            || shape == null
            || wideSmem(width, slots) > smemOptin) {
          throw wideDoesNotFit(want, d, ordered);
        }
        return widePlan(want, width, shape[0], slots);
      }
      case "wide", "widep", "widea" -> {
        // widep: the same plan with the chain's shared-memory loads one group ahead (LAG; its
        // kernels are in the comparison module only: slower than wide on an H200); widea: every
        // lane of a chain warp runs a chain (comparison module)
        int width = wideWidth(d);
        if (d <= 256 || d > 1024 || !ordered || wideSmem(width, WIDE_CHAIN_WARPS) > smemOptin) {
          throw wideDoesNotFit(want, d, ordered);
        }
        return widePlan(want, width, WIDE_CHAIN_WARPS, WIDE_CHAIN_WARPS);
      }
      default -> {
        return null;
      }
    }
  }

  /**
   * The ladder's widet plan at d: its shape at d's slice width ({@link KernelShapes#widetShape}).
   */
  static CudaPlan widet(CudaPlan.Target t) {
    return widetPlan(t.d(), "widet", t.ordered(), t.hopper(), t.smemOptin());
  }

  /**
   * The ladder's wide plan on cards that do not run the kernels of compute capability 9.0 (or where
   * widet's slots do not fit): wide2 up to slice width 896 where its slots fit, widea at 1,024,
   * else wide.
   */
  static CudaPlan beforeSm90(CudaPlan.Target t) {
    int width = wideWidth(t.d());
    if (width <= 896 && wideSmem(width, KernelShapes.wide2Slots(width)) <= t.smemOptin()) {
      int[] shape = wide2Shape(width);
      return widePlan("wide2", width, shape[0], shape[0] * shape[1]);
    }
    return widePlan(width == 1024 ? "widea" : "wide", width, WIDE_CHAIN_WARPS, WIDE_CHAIN_WARPS);
  }

  /** The ladder's widec plan: the first shape built at d's slice width. */
  static CudaPlan widec(CudaPlan.Target t) {
    return widecPlan(t.d(), "widec", t.ordered(), t.hopper(), t.smemOptin());
  }

  /**
   * Whether the ladder runs widec at slice width {@code width} for a partition of {@code slices}
   * slices: where it read clearly faster than deepxb (1,280 and 1,536), and at 1,792 and 2,048
   * where the partition has at least {@link #WIDEC_WIDE_TILES} tiles. A cluster takes whole tiles,
   * so with few of them some clusters run one tile more than others while deepxb, which hands out
   * slices, stays balanced: with 4 * 10^8 values (3-4 tiles a cluster on an H200's 66) widec read
   * 2.07 / 2.42 at 2,048 where deepxb read 1.99 / 2.04 but 1.72 / 1.88 at 1,950 (3.05 tiles a
   * cluster: a quarter of the clusters idle for the last tile) where it read 1.84 / 2.03; with 2 *
   * 10^9 values (~1,000 tiles) 2.38 / 2.52 / 2.36 / 2.51 at 1,700 / 1,792 / 1,950 / 2,048 where
   * deepxb read 2.11 / 2.17 / 2.15 / 2.20 (GpuGradientBench --verify on H200s, 2026-12-01).
   */
  static boolean widecLadder(int width, long slices) {
    return width == 1280
        || width == 1536
        || ((width == 1792 || width == 2048) && slices >= 32L * WIDEC_WIDE_TILES);
  }

  /**
   * Tiles from which widec runs at 1,792 and 2,048: 512 leave at least 7.7 a cluster on 132 SMs, so
   * the last round costs at most 1 / 8.7 of widec's ~15 % lead.
   */
  static final int WIDEC_WIDE_TILES = 512;

  /**
   * A forced or ladder name of the widet family: "widet" (the ladder's shape), "widetCxT[sfx]" or
   * "widelCxT[sfx]" (widel: widet with the weights from global memory and the group sums in
   * registers, so that a slot more fits; WIDEL_KERNEL). sfx "g" names a comparison kernel with the
   * group tree as a butterfly instead of a reduce-scatter (WIDETG_KERNEL).
   */
  private static final java.util.regex.Pattern WIDET_NAME =
      java.util.regex.Pattern.compile("wide([tl])(\\d)x(\\d)(g?)");

  private static CudaPlan widetPlan(
      int d, String want, boolean ordered, boolean hopper, int smemOptin) {
    int width = wideWidth(d);
    java.util.regex.Matcher m = WIDET_NAME.matcher(want);
    boolean named = m.matches(); // else "widet": the ladder's shape
    boolean lean = named && m.group(1).equals("l");
    String shapeName;
    if (named) {
      shapeName = m.group(2) + "x" + m.group(3) + m.group(4);
    } else {
      int[] shape = widetShape(width);
      shapeName = shape[0] + "x" + shape[1];
    }
    java.util.List<String> shapes = lean ? widelShapes(width) : widetShapes(width);
    int smem = lean ? widelSmem(width) : widetSmem(width);
    if (d <= 256
        || d > 1024
        || !ordered
        || !hopper
        || !shapes.contains(shapeName)
        || smem > smemOptin) {
      throw new IllegalArgumentException(
          "plan "
              + want
              + " does not fit d="
              + d
              + " on this card (needs 256 < d <= 1024, ordered, compute capability 9.0 and"
              + " one of the shapes "
              + shapes
              + ")");
    }
    String family = lean ? "widel" : "widet";
    int warps = shapeName.charAt(0) - '0' + WIDE_ACC_WARPS + 1;
    return new CudaPlan(
        family + "-" + width + "_" + shapeName,
        lean ? KernelFamily.WIDEL : KernelFamily.WIDE,
        family + "_o_" + width + "_" + shapeName,
        "resid8_o",
        "grad8_o",
        32 * warps,
        smem,
        width,
        true);
  }

  /**
   * A plan of clusters (local_sums_sm90.cuh, widet_body with NC blocks a cluster): "widec" (the
   * first shape of {@link KernelShapes#widecShapes} at d's slice width) or "widecNxW_CxT". Each
   * block holds W features of every sub-slice, so x is read once at any d the shapes cover; batches
   * that do not start on a slice boundary run the octet two passes.
   */
  private static CudaPlan widecPlan(
      int d, String want, boolean ordered, boolean hopper, int smemOptin) {
    int width = wideWidth(d);
    java.util.List<String> shapes = widecShapes(width);
    String shape =
        want.equals("widec") ? (shapes.isEmpty() ? "" : shapes.get(0)) : want.substring(5);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d)x(\\d+)_(\\d)x(\\d)").matcher(shape);
    if (!m.matches()
        || !shapes.contains(shape)
        || !ordered
        || !hopper
        || widecSmem(widecBlockWidth(shape)) > smemOptin) {
      throw new IllegalArgumentException(
          "plan "
              + want
              + " does not fit d="
              + d
              + " on this card (needs ordered, compute capability 9.0 and, at slice width "
              + width
              + ", one of the shapes "
              + shapes
              + ")");
    }
    return new CudaPlan(
        "widec-" + shape,
        KernelFamily.WIDEC,
        "widec_o_" + shape,
        "resid8_o",
        "grad8_o",
        32 * (Integer.parseInt(m.group(3)) + WIDE_ACC_WARPS + 1),
        widecSmem(widecBlockWidth(shape)),
        width,
        true);
  }

  /** Features a block holds in the widec shape {@code shape} ("NxW_CxT": W). */
  static int widecBlockWidth(String shape) {
    return Integer.parseInt(shape.substring(shape.indexOf('x') + 1, shape.indexOf('_')));
  }

  /** Blocks a cluster of a widec plan (its name "widec-NxW_CxT"). */
  static int widecCluster(CudaPlan plan) {
    return Integer.parseInt(plan.name().substring("widec-".length(), plan.name().indexOf('x')));
  }

  /**
   * A plan of the wide family: {@code chainWarps} chain warps and the accumulating warps, {@code
   * slots} sub-slice slots of shared memory; batches at offsets run the two octet passes.
   */
  private static CudaPlan widePlan(String want, int width, int chainWarps, int slots) {
    return new CudaPlan(
        want + "-" + width,
        KernelFamily.WIDE,
        want + "_o_" + width,
        "resid8_o",
        "grad8_o",
        32 * (chainWarps + WIDE_ACC_WARPS),
        wideSmem(width, slots),
        width,
        true);
  }

  private static IllegalArgumentException wideDoesNotFit(String want, int d, boolean ordered) {
    return new IllegalArgumentException(
        "plan "
            + want
            + " does not fit d="
            + d
            + " on this card"
            + (ordered ? " (needs 256 < d <= 1024)" : " (it has no unordered variant)"));
  }
}
