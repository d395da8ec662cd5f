package parreg.device.cuda;

import static parreg.device.cuda.KernelShapes.DEEPX_GRAD_WARPS;
import static parreg.device.cuda.KernelShapes.DEEPX_SLOTS;
import static parreg.device.cuda.KernelShapes.NARROW_BLOCK;
import static parreg.device.cuda.KernelShapes.SPEC_CHAIN_WARPS;
import static parreg.device.cuda.KernelShapes.SPEC_SLOTS;
import static parreg.device.cuda.KernelShapes.WIDE_CHAIN_WARPS;
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
import static parreg.device.cuda.KernelShapes.wideSmem;
import static parreg.device.cuda.KernelShapes.wideWidth;
import static parreg.device.cuda.KernelShapes.widecShapes;
import static parreg.device.cuda.KernelShapes.widecSmem;
import static parreg.device.cuda.KernelShapes.widetSmem;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which kernels compute a partition's local sums on a given card, and with what shape: the plan
 * ladder ({@link #LADDER}, a table of rungs, each a condition and the plan it builds), the plans of
 * each family built from typed shapes ({@link WidePlans} for the wide family), and {@link
 * ForcedPlans}, which parses the names the benchmark and the parity tests force. {@link
 * KernelFamily} says how the backend launches each family; {@link KernelShapes} holds the shapes
 * built, the slice widths and the shared memory each needs. Chosen once per partition from d, the
 * card's opt-in shared memory per block and its free memory; a pure function of those (no driver
 * call), so the ladder is tested without a card.
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
 * @param kernelFamily how the backend launches it ({@link #family()}: its name)
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
    KernelFamily kernelFamily,
    String main,
    String fallback,
    String grad,
    int block,
    int smem,
    int sliceFeatures,
    boolean quads) {

  /** The family's name: small, narrow, split, specp, large, pipe, flow, quad, spec, wide, ... */
  String family() {
    return kernelFamily.label();
  }

  /**
   * The plan for {@code d} features and {@code slices} 32-sample slices on a card with {@code
   * smemOptin} bytes of opt-in shared memory and {@code freeBytes} of free memory.
   *
   * @param ordered false: the benchmark's unordered (atomic) kernels of the same plan
   * @param forced a plan name to use instead of the ladder's choice ({@link ForcedPlans}), or null
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
    Target t = new Target(d, slices, smemOptin, freeBytes, ordered, hopper);
    return forced != null ? ForcedPlans.named(forced, t) : ladder(t);
  }

  /** What a plan is chosen for: the partition's d and slices, the card, the kernels' variant. */
  record Target(
      int d, long slices, int smemOptin, long freeBytes, boolean ordered, boolean hopper) {
    /** Whether x padded to {@code width} features fits in free memory ({@link #paddedFits}). */
    boolean padded(int width) {
      return paddedFits(slices, width, freeBytes);
    }

    /** The kernels' name infix: ordered "_o_", the unordered atomic variants "_a_". */
    String pfx() {
      return ordered ? "_o_" : "_a_";
    }
  }

  /** A rung of the ladder: where it applies, and the plan it builds there. */
  record Rung(String what, Predicate<Target> fits, Function<Target, CudaPlan> plan) {}

  /** The product's choice: the first rung that fits. */
  static CudaPlan ladder(Target t) {
    for (Rung r : LADDER) {
      if (r.fits().test(t)) {
        return r.plan().apply(t);
      }
    }
    throw new IllegalStateException("the ladder ends in twopass, which fits any d");
  }

  /**
   * The narrowest d at which the ladder runs {@code spec48_m6} rather than the split chain: it
   * reads x padded to 48 features, so at d its speed in bytes of x is about 3.83 (d + 1) / 49 TB/s
   * (3.83 measured at d = 48 on one H200, 2026-12-01), above split-4x12's 3.15 of the same run from
   * d = 43 (3.44); measured at d = 48 only, the threshold is that estimate.
   */
  static final int SPEC48_FROM = 43;

  /**
   * The ladder's narrowp shapes (kernels in local_sums.cu): at d = 17, 18..20 and 21..24, 25..32
   * and 33..48 where {@code spec48_m6} does not run. The split shapes and {@code specp24_6x3m3} are
   * forced plans, {@code 2x12_u2t4p} specp's fallback.
   */
  static final NarrowpShape N17 = new NarrowpShape(17, 4, false, 16);

  static final NarrowpShape N20 = new NarrowpShape(20, 2, true, 12);
  static final NarrowpShape N24 = new NarrowpShape(24, 1, true, 16);
  static final NarrowpShape N32 = new NarrowpShape(32, 1, true, 12);
  static final NarrowpShape N48 = new NarrowpShape(48, 1, true, 8);

  /** The ladder, first that fits (docs/GPU.md gives each family's figures). */
  static final List<Rung> LADDER =
      List.of(
          new Rung("small", t -> t.d() <= 16, t -> small(t)),
          // spec at 48 features, two blocks an SM: 3.83 TB/s at d = 48 where split-4x12_u2t2p
          // read 3.15 and spec-48 2.86 (GpuGradientBench --verify, one H200, 2026-12-01)
          new Rung(
              "spec48_m6",
              t ->
                  t.d() >= SPEC48_FROM
                      && t.d() <= 48
                      && t.ordered()
                      && specSmem(t.d(), 48) <= t.smemOptin()
                      && t.padded(48),
              t -> specShape(spec(t, 48), 'm', 6)),
          // a warp per tile, every accumulator in registers, the weights by value, a group of
          // slices loaded ahead: narrowp-17_u4_w16 3.91 TB/s at d = 17 where split-2x9_u8t4 read
          // 3.05; narrowp-20_u2p_w12 3.71-3.99 at 18..20; narrowp-24_u1p_w16 3.69-3.97 at 21..24
          // (GpuGradientBench --verify on three H200s, 2026-12-01)
          new Rung(
              "narrowp",
              t -> t.d() <= 24 && t.ordered(),
              t -> narrowp(t.d(), t.d() <= 17 ? N17 : t.d() <= 20 ? N20 : N24)),
          // up to 32 features, one slice loaded ahead, 12 warps an SM: 3.84 TB/s at d = 32 where
          // split-2x16_u2t4p read 3.24 / 3.27 (same runs)
          new Rung("narrowp32", t -> t.d() <= 32 && t.ordered(), t -> narrowp(t.d(), N32)),
          // 48 features, 8 warps an SM (254 registers, no spill): 2.97 / 3.24 / 3.22 / 3.52 TB/s
          // at d = 33 / 36 / 40 / 42 where split-4x12_u2t2p read 2.39 / 2.81 / 2.98 / 2.96
          new Rung("narrowp48", t -> t.d() <= 48 && t.ordered(), t -> narrowp(t.d(), N48)),
          // the unordered ladder: spec at 24 features, 2.25 / 3.07 TB/s at d = 17 / 24 where
          // narrow-24 read 2.08-2.17 / 2.70-2.75 (one H200, 2026-11-30)
          new Rung(
              "spec24",
              t -> t.d() <= 24 && specSmem(t.d(), 24) <= t.smemOptin() && t.padded(24),
              t -> spec(t, 24)),
          // the unordered ladder up to 32: narrow-32 2.48, spec-64 1.85 TB/s at d = 32
          new Rung("narrow", t -> t.d() <= 32, t -> narrow(t, narrowWidth(t.d()))),
          // slice width 100, 7 chain warps and slots: 3.55 TB/s at d = 100 where spec-104_c7 read
          // 3.29 (one H200, 2026-12-01); below 97 it reads 4 % fewer padding bytes than 104
          new Rung(
              "spec100_c7",
              t ->
                  t.d() > 64
                      && t.d() <= 100
                      && t.ordered()
                      && Math.max(specSmem(t.d(), 100), 7 * (128 * 100 + 128)) <= t.smemOptin()
                      && t.padded(100),
              t -> specShape(spec(t, 100), 'c', 7)),
          // the narrowest spec width that holds d; ordered, two blocks an SM with a ring of 4
          // quads at width 64 (3.84 TB/s at d = 64 where spec-64 read 3.31) and seven chain warps
          // and slots at 104 (3.47 at d = 100 where spec-104 read 3.08; one H200, 2026-12-01)
          new Rung(
              "spec",
              t ->
                  t.d() <= 256
                      && specSmem(t.d(), specWidth(t.d())) <= t.smemOptin()
                      && t.padded(specWidth(t.d())),
              t -> {
                int width = specWidth(t.d());
                if (t.ordered() && width == 64) {
                  return specShape(spec(t, 64), 'm', 4);
                } else if (t.ordered()
                    && width == 104
                    && 7 * (128 * width + 128) <= t.smemOptin()) {
                  return specShape(spec(t, 104), 'c', 7);
                }
                return spec(t, width);
              }),
          new Rung(
              "quad2",
              t -> t.d() > 64 && t.d() <= 256 && quadSmem(t.d()) <= t.smemOptin(),
              t -> quad(t)),
          new Rung(
              "flow2", t -> t.d() <= 256 && flowSmem(t.d(), 2) <= t.smemOptin(), t -> flow(t, 2)),
          new Rung(
              "flow1", t -> t.d() <= 256 && flowSmem(t.d(), 1) <= t.smemOptin(), t -> flow(t, 1)),
          new Rung(
              "pipe2", t -> t.d() <= 256 && pipeSmem(t.d(), 2) <= t.smemOptin(), t -> pipe(t, 2)),
          new Rung(
              "pipe1", t -> t.d() <= 256 && pipeSmem(t.d(), 1) <= t.smemOptin(), t -> pipe(t, 1)),
          new Rung(
              "large1",
              t -> t.d() <= 256 && largeSmem(t.d(), 1) <= t.smemOptin(),
              t -> large(t, 1)),
          // the copy engine stages the slots: widet 3.65 / 3.78 / 3.60 / 3.66 TB/s at d = 384 /
          // 512 / 640 / 768 where wide2 read 3.19 / 3.09 / 2.83 / 2.73 (one H200, 2026-12-01);
          // its shapes by width in KernelShapes.widetShape
          new Rung(
              "widet",
              t ->
                  t.hopper()
                      && t.d() > 256
                      && t.d() <= 1024
                      && t.ordered()
                      && widetSmem(wideWidth(t.d())) <= t.smemOptin()
                      && t.padded(wideWidth(t.d())),
              t -> WidePlans.widet(t)),
          // wide2 at widths 384..896 (3.19 / 2.94 / 2.82 / 2.73 / 1.92 TB/s where wide read 2.26
          // / 2.22 / 2.14 / 2.33 / 1.79), widea at 1,024 (2.44; wide 2.19, wide2 2.15; one H200,
          // 2026-11-30)
          new Rung(
              "wide",
              t ->
                  t.d() > 256
                      && t.d() <= 1024
                      && t.ordered()
                      && wideSmem(wideWidth(t.d()), WIDE_CHAIN_WARPS) <= t.smemOptin()
                      && t.padded(wideWidth(t.d())),
              t -> WidePlans.beforeSm90(t)),
          // clusters of 2 widet blocks, x read once: widec-2x640_3x2 2.82 TB/s at d = 1,280 and
          // widec-2x768_2x4 2.40-2.44 at 1,536 where deepxb read 1.94-2.00 (three H200s,
          // 2026-12-01); at 1,792 and 2,048 on partitions of 512 tiles or more
          new Rung(
              "widec",
              t ->
                  t.hopper()
                      && t.d() > 1024
                      && t.ordered()
                      && WidePlans.widecLadder(wideWidth(t.d()), t.slices())
                      && widecSmem(WidePlans.widecBlockWidth(widecShapes(wideWidth(t.d())).get(0)))
                          <= t.smemOptin()
                      && t.padded(wideWidth(t.d())),
              t -> WidePlans.widec(t)),
          // deepxb 2.14 / 2.08 / 2.06 / 1.98 TB/s at d = 1,025 / 1,500 / 2,048 / 4,096 where deep
          // read 1.58 / 1.59 / 1.54 / 1.53 (one H200, 2026-12-01)
          new Rung(
              "deepxb",
              t -> t.d() > 1024 && t.ordered() && deepxSmem(t.d()) <= t.smemOptin(),
              t -> deepx(t, "deepxb")),
          new Rung("deep", t -> t.d() > 1024 && t.ordered(), t -> deep(t)),
          new Rung("twopass", t -> true, t -> twopass(t)));

  /** small: a block of 8 warps a group of 8 tiles, d rounded up to a power of two (d &le; 16). */
  static CudaPlan small(Target t) {
    if (t.d() > 16) {
      throw new IllegalArgumentException("plan small needs d <= 16");
    }
    int dm = pow2AtLeast(t.d());
    return new CudaPlan(
        "small-" + dm,
        KernelFamily.SMALL,
        "small" + t.pfx() + dm,
        null,
        null,
        256,
        0,
        t.d(),
        false);
  }

  /**
   * A narrowp shape (local_sums.cuh, narrowp_body): a warp per tile with {@code dm} accumulators in
   * registers, the weights by value, {@code u} slices a group ({@code ahead}: the next group loaded
   * ahead), blocks of one warp and {@code w} of them an SM; launched as narrow.
   */
  record NarrowpShape(int dm, int u, boolean ahead, int w) {
    String shape() {
      return dm + "_u" + u + (ahead ? "p" : "") + "_w" + w;
    }
  }

  static CudaPlan narrowp(int d, NarrowpShape s) {
    return new CudaPlan(
        "narrowp-" + s.shape(),
        KernelFamily.NARROW,
        "narrowp_o_" + s.shape(),
        null,
        null,
        32,
        0,
        d,
        false);
  }

  /** narrow: a warp a tile, {@code dm} accumulators a lane (24, 32; 48, 64 the comparison's). */
  static CudaPlan narrow(Target t, int dm) {
    return new CudaPlan(
        "narrow-" + dm,
        KernelFamily.NARROW,
        "narrow" + t.pfx() + dm,
        null,
        null,
        NARROW_BLOCK,
        0,
        t.d(),
        false);
  }

  /** large, pipe and flow: a block a tile, x staged in shared memory, {@code p} loads in flight. */
  static CudaPlan large(Target t, int p) {
    int k = pow2AtLeast((t.d() + 31) / 32);
    return new CudaPlan(
        "large-" + k + "x" + p,
        KernelFamily.LARGE,
        "large" + t.pfx() + k + "_" + p,
        null,
        null,
        1024,
        largeSmem(t.d(), p),
        t.d(),
        false);
  }

  static CudaPlan pipe(Target t, int p) {
    int k = pow2AtLeast((t.d() + 31) / 32);
    return new CudaPlan(
        "pipe-" + k + "x" + p,
        KernelFamily.PIPE,
        "pipe" + t.pfx() + k + "_" + p,
        null,
        null,
        1024,
        pipeSmem(t.d(), p),
        t.d(),
        false);
  }

  static CudaPlan flow(Target t, int p) {
    int k = pow2AtLeast((t.d() + 31) / 32);
    return new CudaPlan(
        "flow-" + k + "x" + p,
        KernelFamily.FLOW,
        "flow" + t.pfx() + k + "_" + p,
        "pipe" + t.pfx() + k + "_" + p,
        null,
        1024,
        flowSmem(t.d(), p),
        t.d(),
        false);
  }

  /** quad: flow on the quad layout (64 &lt; d &le; 256), two loads in flight. */
  static CudaPlan quad(Target t) {
    int k = pow2AtLeast((t.d() + 31) / 32);
    return new CudaPlan(
        "quad-" + k + "x2",
        KernelFamily.QUAD,
        "quad" + t.pfx() + k + "_2",
        "pipeq" + t.pfx() + k + "_2",
        null,
        1024,
        quadSmem(t.d()),
        (t.d() + 3) & ~3,
        true);
  }

  /** spec at slice width {@code width}; batches at offsets run its pipes kernel. */
  static CudaPlan spec(Target t, int width) {
    String pfx = t.pfx();
    return new CudaPlan(
        "spec-" + width,
        KernelFamily.SPEC,
        "spec" + pfx + width,
        width % 32 == 0 ? "pipes" + pfx + width / 32 + "_2" : "pipes" + pfx + "w" + width,
        null,
        32 * (SPEC_CHAIN_WARPS + specAccWarps(width)),
        specSmem(t.d(), width),
        width,
        true);
  }

  /**
   * A shape of spec at the width of {@code base}: another register ring (r), {@code v} chain warps
   * (c), the L2 prefetch of the slice v turns ahead in 128- (f) or 32-byte lines (g), or two blocks
   * an SM with a ring of v (m).
   */
  static CudaPlan specShape(CudaPlan base, char kind, int v) {
    String sfx = "_" + kind + v;
    return new CudaPlan(
        base.name() + sfx,
        base.kernelFamily(),
        base.main() + sfx,
        base.fallback(),
        null,
        kind == 'c' ? base.block() + 32 * (v - SPEC_CHAIN_WARPS) : base.block(),
        // C > 6 chain warps: C slots (a slot has one chain warp), else the 6 of the base shape
        kind == 'c' && v > SPEC_SLOTS
            ? Math.max(base.smem(), v * (128 * base.sliceFeatures() + 128))
            : base.smem(),
        base.sliceFeatures(),
        true);
  }

  /**
   * deepx: one chain warp an SM fed by 6 loader warps through a shared-memory ring, gradient warps
   * re-reading x; one block an SM ({@code name}: deepxb the ladder's, deepx, deepxc, deepxd).
   */
  static CudaPlan deepx(Target t, String name) {
    return new CudaPlan(
        name,
        KernelFamily.DEEPW,
        name + "_o",
        null,
        null,
        32 * (1 + DEEPX_SLOTS + DEEPX_GRAD_WARPS.get(name)),
        deepxSmem(t.d()), // the weights, the ring
        t.d(),
        false);
  }

  /** deep: the residual pass over slices, then the gradient pass (d &gt; 1,024, ordered). */
  static CudaPlan deep(Target t) {
    return new CudaPlan(
        "deep", KernelFamily.DEEP, "deepr_o", null, "deepg_o", 256, 4 * t.d(), t.d(), false);
  }

  static CudaPlan twopass(Target t) {
    String sfx = t.ordered() ? "_o" : "_a";
    return new CudaPlan(
        "twopass", KernelFamily.TWOPASS, "resid" + sfx, null, "grad" + sfx, 256, 0, t.d(), false);
  }

  /**
   * A split-chain plan (local_sums.cuh, split_body): "split" is the shape for d ({@link
   * KernelShapes#splitShape}), "splitKxF_uUtT[p]" a named shape (K warps a team of F features each
   * at most, U slices a group, T teams a block, p: the next group loaded ahead), whose kernel
   * {@code split_o_KxF_uUtT[p]} may be in the comparison module only.
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
        KernelFamily.SPLIT,
        "split_o_" + shape,
        null,
        null,
        32 * kw * teams,
        4 * (teams * kw * u * 32 + kw * f),
        d,
        false);
  }

  /** The split plan that runs a specp plan's batches at offsets (same layout, same d). */
  static CudaPlan specpFallback(int d) {
    return splitPlan(d, "split", true);
  }

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
