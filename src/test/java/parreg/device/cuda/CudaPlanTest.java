package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The plan ladder without a card: what an H200 (227 KB of opt-in shared memory per block) and a
 * card with less shared memory or little free memory are given, and forced plans that do not fit.
 */
class CudaPlanTest {
  static final int H200_SMEM = 232_448;
  static final long FREE = 100L << 30;

  static String plan(int d, long slices, int smem, long free) {
    return CudaPlan.choose(d, slices, smem, free, true, null).name();
  }

  @Test
  void theLadderOnAnH200() {
    assertEquals("small-1", plan(1, 1000, H200_SMEM, FREE));
    assertEquals("small-16", plan(9, 1000, H200_SMEM, FREE));
    // 17..20: narrowp, a warp per tile with the accumulators in registers, whatever the memory
    // (no padding, no shared memory, any batch start)
    assertEquals("narrowp-17_u4_w16", plan(17, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-20_u2p_w12", plan(18, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-20_u2p_w12", plan(19, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-20_u2p_w12", plan(20, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-17_u4_w16", plan(17, 100_000_000, 48 * 1024, 1L << 30));
    assertEquals(null, CudaPlan.choose(20, 1000, H200_SMEM, FREE, true, null).fallback());
    assertEquals(
        "narrowp_o_20_u2p_w12", CudaPlan.choose(19, 1000, H200_SMEM, FREE, true, null).main());
    assertEquals(32, CudaPlan.choose(19, 1000, H200_SMEM, FREE, true, null).block());
    // 21..24: narrowp at one slice ahead, 16 warps an SM
    assertEquals("narrowp-24_u1p_w16", plan(21, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-24_u1p_w16", plan(24, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-24_u1p_w16", plan(24, 100_000_000, 48 * 1024, 1L << 30));
    assertEquals(null, CudaPlan.choose(21, 1000, H200_SMEM, FREE, true, null).fallback());
    // 25..32: narrowp at 32 features, one slice ahead, 12 warps an SM, whatever the memory;
    // split-2x16_u2t4p is a forced plan
    assertEquals("narrowp-32_u1p_w12", plan(25, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-32_u1p_w12", plan(28, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-32_u1p_w12", plan(32, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-32_u1p_w12", plan(32, 100_000_000, 48 * 1024, 1L << 30));
    assertEquals(
        "narrowp_o_32_u1p_w12", CudaPlan.choose(29, 1000, H200_SMEM, FREE, true, null).main());
    assertEquals(null, CudaPlan.choose(29, 1000, H200_SMEM, FREE, true, null).fallback());
    assertEquals(
        "split-2x16_u2t4p",
        CudaPlan.choose(32, 1000, H200_SMEM, FREE, true, "split2x16_u2t4p").name());
    // 33..42: narrowp at 48 features, one slice ahead, 8 warps an SM, whatever the memory;
    // split-4x12_u2t2p is a forced plan
    assertEquals("narrowp-48_u1p_w8", plan(33, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-48_u1p_w8", plan(42, 1000, H200_SMEM, FREE));
    assertEquals(
        "narrowp_o_48_u1p_w8", CudaPlan.choose(37, 1000, H200_SMEM, FREE, true, null).main());
    assertEquals(null, CudaPlan.choose(37, 1000, H200_SMEM, FREE, true, null).fallback());
    assertEquals(
        "split-4x12_u2t2p",
        CudaPlan.choose(40, 1000, H200_SMEM, FREE, true, "split4x12_u2t2p").name());
    // 43..48: spec at 48 features, two blocks an SM, where x padded to
    // 48 features fits; narrowp where it does not
    assertEquals("spec-48_m6", plan(43, 1000, H200_SMEM, FREE));
    assertEquals("spec-48_m6", plan(48, 1000, H200_SMEM, FREE));
    assertEquals("narrowp-48_u1p_w8", plan(48, 100_000_000, H200_SMEM, 1L << 30));
    assertEquals("narrowp-48_u1p_w8", plan(33, 100_000_000, 48 * 1024, 1L << 30));
    // 49..64 and 65..104: spec's shapes of two blocks an SM and of seven chain warps
    assertEquals("spec-64_m4", plan(49, 1000, H200_SMEM, FREE));
    assertEquals("spec-64_m4", plan(64, 625_000, H200_SMEM, FREE));
    // 65..100: width 100, seven chain warps; 101..104 width 104
    assertEquals("spec-100_c7", plan(65, 1000, H200_SMEM, FREE));
    assertEquals("spec-100_c7", plan(100, 1000, H200_SMEM, FREE));
    assertEquals("spec-104_c7", plan(101, 1000, H200_SMEM, FREE));
    assertEquals("spec-104_c7", plan(104, 1000, H200_SMEM, FREE));
    assertEquals("spec-104", plan(100, 1000, 80 * 1024, FREE)); // 7 slots need 91 / 94 KB
    assertEquals("spec-128", plan(105, 1000, H200_SMEM, FREE));
    assertEquals("spec-192", plan(161, 1000, H200_SMEM, FREE));
    assertEquals("spec-208", plan(200, 1000, H200_SMEM, FREE));
    assertEquals("spec-256", plan(209, 1000, H200_SMEM, FREE));
    assertEquals("spec-256", plan(256, 1000, H200_SMEM, FREE));
    assertEquals("wide2-384", plan(257, 1000, H200_SMEM, FREE));
    assertEquals("wide2-512", plan(512, 1000, H200_SMEM, FREE));
    assertEquals("wide2-640", plan(513, 1000, H200_SMEM, FREE));
    assertEquals("wide2-896", plan(896, 1000, H200_SMEM, FREE));
    assertEquals("widea-1024", plan(897, 1000, H200_SMEM, FREE));
    assertEquals("widea-1024", plan(1024, 1000, H200_SMEM, FREE));
    assertEquals("deepxb", plan(1025, 1000, H200_SMEM, FREE));
    assertEquals("deepxb", plan(4096, 1000, H200_SMEM, FREE));
    assertEquals("deepxb", plan(8190, 1000, H200_SMEM, FREE));
    // deepxb's ring and weights (80 KB at 8,190) past a card's shared memory: deep
    assertEquals("deepxb", plan(4092, 1000, 65_536, FREE));
    assertEquals("deep", plan(4093, 1000, 65_536, FREE));
  }

  /**
   * The widec plans (clusters of widet blocks): forced by shape on a card of compute capability
   * 9.0, each block W features of the slice width N W = d rounded up to 128, widet's slots and a
   * chain state and a barrier more a slot; refused elsewhere with the shapes that exist.
   */
  @Test
  void widecPlansAreClustersOfWidetBlocks() {
    CudaPlan c = CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "widec2x1024_2x3", true);
    assertEquals("widec-2x1024_2x3", c.name());
    assertEquals("widec", c.family());
    assertEquals("widec_o_2x1024_2x3", c.main());
    assertEquals("resid8_o", c.fallback());
    assertEquals("grad8_o", c.grad());
    assertEquals(32 * (2 + 8 + 1), c.block());
    assertEquals(2048, c.sliceFeatures());
    assertEquals(2, WidePlans.widecCluster(c));
    assertEquals(KernelShapes.widetSmem(1024) + 6 * 40, c.smem());
    assertEquals(
        "widec_o_2x1024_3x2",
        CudaPlan.choose(1921, 1000, H200_SMEM, FREE, true, "widec", true).main());
    assertEquals(
        "widec-2x640_3x2", CudaPlan.choose(1153, 1, H200_SMEM, FREE, true, "widec", true).name());
    for (int width = 384; width <= 8192; width += 128) {
      for (String shape : KernelShapes.widecShapes(width)) {
        int w = Integer.parseInt(shape.substring(shape.indexOf('x') + 1, shape.indexOf('_')));
        assertEquals(width, Integer.parseInt(shape.substring(0, shape.indexOf('x'))) * w, shape);
        assertTrue(KernelShapes.widecSmem(w) <= H200_SMEM, "widec fits an H200: " + shape);
      }
    }
    // the ladder: at slice widths 1,280 and 1,536 on cards of compute capability 9.0 where x
    // padded to the width fits; deepxb elsewhere above 1,024 with few tiles
    assertEquals("widec-2x640_3x2", hopperPlan(1153));
    assertEquals("widec-2x640_3x2", hopperPlan(1280));
    assertEquals("deepxb", hopperPlan(1281));
    assertEquals("widec-2x768_2x4", hopperPlan(1409));
    assertEquals("widec-2x768_2x4", hopperPlan(1536));
    assertEquals("deepxb", hopperPlan(1537));
    assertEquals("deepxb", hopperPlan(1792));
    assertEquals("deepxb", hopperPlan(2048));
    // at 1,665..1,792 and 1,921..2,048 from 512 tiles (16,384 slices) on
    long many = 32L * WidePlans.WIDEC_WIDE_TILES;
    assertEquals(
        "widec-2x896_3x2", CudaPlan.choose(1665, many, H200_SMEM, FREE, true, null, true).name());
    assertEquals(
        "widec-2x1024_3x2", CudaPlan.choose(2048, many, H200_SMEM, FREE, true, null, true).name());
    assertEquals(
        "deepxb", CudaPlan.choose(2048, many - 1, H200_SMEM, FREE, true, null, true).name());
    assertEquals("deepxb", CudaPlan.choose(1664, many, H200_SMEM, FREE, true, null, true).name());
    assertEquals("deepxb", CudaPlan.choose(2049, many, H200_SMEM, FREE, true, null, true).name());
    assertEquals("deepxb", plan(1280, 1000, H200_SMEM, FREE));
    assertEquals(
        "deepxb", CudaPlan.choose(1280, 10_000_000, H200_SMEM, 8L << 30, true, null, true).name());
    // a shape of another width, no card of compute capability 9.0, unordered, no shape at 1,152
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CudaPlan.choose(1536, 1000, H200_SMEM, FREE, true, "widec2x1024_3x2", true));
    assertTrue(e.getMessage().contains("[2x768_2x4]"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "widec2x1024_3x2", false));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, false, "widec2x1024_3x2", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1100, 1000, H200_SMEM, FREE, true, "widec", true));
  }

  /** On a card of compute capability 9.0 the widet kernels (local_sums_sm90.cu) take 257..1,024. */
  @Test
  void hopperCardsRunWidetAt257To1024() {
    assertEquals("widet-384_2x4", hopperPlan(257));
    assertEquals("widet-384_2x4", hopperPlan(384));
    assertEquals("widet-512_2x4", hopperPlan(512));
    assertEquals("widet-640_3x2", hopperPlan(513));
    assertEquals("widet-768_2x4", hopperPlan(700));
    assertEquals("widet-896_2x2", hopperPlan(896)); // 2 x 2, the chain rolled
    assertEquals(
        "widet_o_896_2x2", CudaPlan.choose(801, 1000, H200_SMEM, FREE, true, null, true).main());
    assertEquals(8 * 32 * 896 + 32 + 8 * 32 + 8 * 24, KernelShapes.widelSmem(896));
    assertEquals(
        "widet_o_896_2x2", CudaPlan.choose(896, 1000, H200_SMEM, FREE, true, "widet", true).main());
    assertEquals(
        "widel_o_896_2x4",
        CudaPlan.choose(896, 1000, H200_SMEM, FREE, true, "widel2x4", true).main());
    assertEquals("widet-1024_2x2", hopperPlan(897));
    assertEquals("widet-1024_2x2", hopperPlan(1024));
    // the other widths keep their plans; the unordered variants have no widet
    assertEquals("spec-256", hopperPlan(256));
    assertEquals("deepxb", hopperPlan(1025)); // the sm_90 module has no plan above 1,024
    assertEquals("twopass", CudaPlan.choose(600, 1000, H200_SMEM, FREE, false, null, true).name());
    CudaPlan t = CudaPlan.choose(1024, 1000, H200_SMEM, FREE, true, null, true);
    assertEquals("widet_o_1024_2x2", t.main()); // 2 x 2, the chain rolled
    assertEquals("wide", t.family());
    assertEquals("resid8_o", t.fallback());
    assertEquals("grad8_o", t.grad());
    assertEquals(32 * (2 + 8 + 1), t.block()); // chain warps, accumulating warps, the producer
    assertEquals(6 * 32 * 1024 + 20 * 1024 + 32 + 6 * 32 + 6 * 24, t.smem());
    assertEquals(1024, t.sliceFeatures());
    for (int width = 384; width <= 1024; width += 128) {
      assertTrue(KernelShapes.widetSmem(width) <= H200_SMEM, "widet fits an H200 at " + width);
      assertTrue(KernelShapes.widelSmem(width) <= H200_SMEM, "widel fits an H200 at " + width);
    }
    // forced shapes: only those built, only on such cards
    // comparison kernels: g the butterfly group tree; other suffixes refused
    CudaPlan g = CudaPlan.choose(1000, 1000, H200_SMEM, FREE, true, "widet3x2g", true);
    assertEquals("widet_o_1024_3x2g", g.main());
    assertEquals("widet-1024_3x2g", g.name());
    assertEquals(32 * (3 + 8 + 1), g.block());
    assertEquals(
        "widet_o_896_3x2g",
        CudaPlan.choose(800, 1000, H200_SMEM, FREE, true, "widet3x2g", true).main());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1000, 1000, H200_SMEM, FREE, true, "widet2x2r4", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1000, 1000, H200_SMEM, FREE, true, "widet3x2a4", true));
    assertEquals(
        "widet_o_896_1x4",
        CudaPlan.choose(800, 1000, H200_SMEM, FREE, true, "widet1x4", true).main());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(800, 1000, H200_SMEM, FREE, true, "widet5x1", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(800, 1000, H200_SMEM, FREE, true, "widet", false));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(256, 1000, H200_SMEM, FREE, true, "widet", true));
    // x padded beyond free memory: the unpadded fallback, as without widet
    assertEquals(
        "twopass", CudaPlan.choose(300, 100_000_000, H200_SMEM, FREE, true, null, true).name());
  }

  private static String hopperPlan(int d) {
    return CudaPlan.choose(d, 1000, H200_SMEM, FREE, true, null, true).name();
  }

  @Test
  void theWidePlanNeedsItsSlotsAndThePaddedCopy() {
    assertEquals(
        217_312,
        KernelShapes.wideSmem(
            1024, KernelShapes.WIDE_CHAIN_WARPS)); // 6 slots of 32 KB, weights, group sums
    assertEquals("twopass", plan(1024, 1000, 200 * 1024, FREE));
    assertEquals(
        "twopass", plan(300, 100_000_000, H200_SMEM, FREE)); // 10^8 slices at width 384: 4.9 TB
    // the benchmark's unordered variants: wide has none, the ladder gives the two passes
    assertEquals("twopass", CudaPlan.choose(600, 1000, H200_SMEM, FREE, false, null).name());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(600, 1000, H200_SMEM, FREE, false, "wide"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(256, 1000, H200_SMEM, FREE, true, "wide"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1025, 1000, H200_SMEM, FREE, true, "wide"));
  }

  @Test
  void xPaddedBeyondFreeMemoryFallsBackToAnUnpaddedPlan() {
    // 10^8 slices at width 128 need 1.6 TB: quad keeps x at d rounded to 4
    assertEquals("quad-4x2", plan(100, 100_000_000, H200_SMEM, FREE));
    assertEquals("flow-2x2", plan(50, 100_000_000, H200_SMEM, FREE));
  }

  @Test
  void lessSharedMemoryGivesTheEarlierPlans() {
    assertEquals("flow-2x2", plan(50, 1000, 48 * 1024, FREE));
    assertEquals("flow-8x1", plan(256, 1000, 100 * 1024, FREE));
    assertEquals("large-8x1", plan(256, 1000, 80 * 1024, FREE));
    assertEquals("twopass", plan(256, 1000, 48 * 1024, FREE));
  }

  @Test
  void namesKernelsAndLayouts() {
    CudaPlan spec = CudaPlan.choose(102, 1000, H200_SMEM, FREE, true, null);
    assertEquals("spec_o_104_c7", spec.main());
    assertEquals("pipes_o_w104", spec.fallback());
    assertEquals(104, spec.sliceFeatures());
    assertEquals(true, spec.quads());
    assertEquals(32 * 20, spec.block()); // 7 chain warps, 13 accumulating
    assertEquals(7 * (128 * 104 + 128), spec.smem()); // 7 slots
    CudaPlan spec100 = CudaPlan.choose(66, 1000, H200_SMEM, FREE, true, null);
    assertEquals("spec_o_100_c7", spec100.main());
    assertEquals("pipes_o_w100", spec100.fallback());
    assertEquals(100, spec100.sliceFeatures());
    assertEquals(32 * 32, spec100.block()); // 7 chain warps, 25 accumulating
    assertEquals(7 * (128 * 100 + 128), spec100.smem());
    // specp-24_6x3m3: a forced plan (narrowp runs 19..24)
    CudaPlan specp = CudaPlan.choose(20, 1000, H200_SMEM, FREE, true, "specp24_6x3m3");
    assertEquals("specp_o_24_6x3m3", specp.main());
    assertEquals("split_o_2x12_u2t4p", specp.fallback());
    assertEquals(20, specp.sliceFeatures());
    assertEquals(false, specp.quads());
    assertEquals(32 * 9, specp.block());
    assertEquals(6 * (512 * 6 + 128), specp.smem());
    CudaPlan spec48 = CudaPlan.choose(45, 1000, H200_SMEM, FREE, true, null);
    assertEquals("spec_o_48_m6", spec48.main());
    assertEquals("pipes_o_w48", spec48.fallback());
    assertEquals(32 * 12, spec48.block());
    CudaPlan spec64 = CudaPlan.choose(50, 1000, H200_SMEM, FREE, true, null);
    assertEquals("spec_o_64_m4", spec64.main());
    assertEquals("pipes_o_2_2", spec64.fallback());
    assertEquals(CudaPlan.choose(50, 1000, H200_SMEM, FREE, true, "spec64").smem(), spec64.smem());
    CudaPlan spec128 = CudaPlan.choose(66, 1000, H200_SMEM, FREE, true, "spec128");
    assertEquals("spec_o_128", spec128.main());
    assertEquals("pipes_o_4_2", spec128.fallback());
    assertEquals(32 * 14, spec128.block());
    CudaPlan quad = CudaPlan.choose(66, 1000, H200_SMEM, FREE, false, "quad2");
    assertEquals("quad_a_4_2", quad.main());
    assertEquals("pipeq_a_4_2", quad.fallback());
    assertEquals(68, quad.sliceFeatures());
    CudaPlan wide = CudaPlan.choose(300, 1000, H200_SMEM, FREE, true, "wide");
    assertEquals("wide_o_384", wide.main());
    assertEquals("resid8_o", wide.fallback());
    assertEquals("grad8_o", wide.grad());
    assertEquals(384, wide.sliceFeatures());
    assertEquals(32 * 14, wide.block());
    CudaPlan wide2 = CudaPlan.choose(300, 1000, H200_SMEM, FREE, true, null);
    assertEquals("wide2_o_384", wide2.main());
    assertEquals("wide", wide2.family());
    assertEquals("resid8_o", wide2.fallback());
    assertEquals(32 * 12, wide2.block()); // 4 chain warps of 4 sub-slices, 8 accumulating
    assertEquals(16 * 32 * 384 + 20 * 384 + 32 + 16 * 32, wide2.smem());
    assertEquals(32 * 14, CudaPlan.choose(512, 1000, H200_SMEM, FREE, true, null).block());
    CudaPlan widep = CudaPlan.choose(1000, 1000, H200_SMEM, FREE, true, "widep");
    assertEquals("widep-1024", widep.name());
    assertEquals("widep_o_1024", widep.main());
    assertEquals("wide", widep.family());
    CudaPlan two = CudaPlan.choose(300, 1000, H200_SMEM, FREE, true, "twopass");
    assertEquals("resid_o", two.main());
    assertEquals("grad_o", two.grad());
    assertEquals(300, two.sliceFeatures());
    assertEquals("large_o_4_2", CudaPlan.choose(100, 1000, H200_SMEM, FREE, true, "large2").main());
    CudaPlan narrow = CudaPlan.choose(30, 1000, H200_SMEM, FREE, true, "narrow");
    assertEquals("narrow_o_32", narrow.main());
    assertEquals(30, narrow.sliceFeatures()); // the plain layout: no padding
    assertEquals(false, narrow.quads());
    assertEquals(64, narrow.block());
    // forced: narrow-48 (comparison module) at 32 < d <= 48
    assertEquals("narrow_o_48", CudaPlan.choose(40, 1000, H200_SMEM, FREE, true, "narrow").main());
    assertEquals(
        "narrow_o_64", CudaPlan.choose(50, 1000, H200_SMEM, FREE, true, "narrow64").main());
    assertEquals(
        "narrow_o_24_1", CudaPlan.choose(20, 1000, H200_SMEM, FREE, true, "narrow1").main());
    CudaPlan deepxb = CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, null);
    assertEquals("deepxb_o", deepxb.main());
    assertEquals("deepw", deepxb.family()); // one persistent block an SM
    assertEquals(2048, deepxb.sliceFeatures()); // the plain slice layout (any batch start)
    CudaPlan deep = CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "deep");
    assertEquals("deepr_o", deep.main());
    assertEquals("deepg_o", deep.grad());
    assertEquals(2048, deep.sliceFeatures());
    assertEquals(4 * 2048, deep.smem()); // the weights
    // the benchmark's unordered variants: deep has none, the ladder gives the two passes
    assertEquals("twopass", CudaPlan.choose(2048, 1000, H200_SMEM, FREE, false, null).name());
    assertEquals("narrow_a_32", CudaPlan.choose(30, 1000, H200_SMEM, FREE, false, null).main());
  }

  @Test
  void specpAndSpec100PlansByName() {
    // spec's block on the plain slice layout; batches at offsets run the
    // split kernel of d (same layout), so the plan's shared memory covers both
    CudaPlan p = CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "specp20_6x5m3");
    assertEquals("specp-20_6x5m3", p.name());
    assertEquals("specp", p.family());
    assertEquals("specp_o_20_6x5m3", p.main());
    assertEquals("split_o_2x9_u8t4", p.fallback());
    assertEquals(32 * 11, p.block());
    assertEquals(
        Math.max(
            6 * (512 * 5 + 128), CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, null).smem()),
        p.smem());
    assertEquals(17, p.sliceFeatures()); // the plain slice layout, no padding
    assertEquals(false, p.quads());
    assertEquals(
        "split_o_2x12_u2t4p",
        CudaPlan.choose(24, 1000, H200_SMEM, FREE, true, "specp24_6x6m2").fallback());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(21, 1000, H200_SMEM, FREE, true, "specp20_6x5m3"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(17, 1000, H200_SMEM, FREE, false, "specp20_6x5m3"));
    // spec at slice width 100: 25 accumulating warps of one quad; 7 chain warps: 32 warps
    CudaPlan s = CudaPlan.choose(100, 1000, H200_SMEM, FREE, true, "spec100");
    assertEquals("spec_o_100", s.main());
    assertEquals("pipes_o_w100", s.fallback());
    assertEquals(32 * (6 + 25), s.block());
    assertEquals(100, s.sliceFeatures());
    CudaPlan c = CudaPlan.choose(97, 1000, H200_SMEM, FREE, true, "spec100_c7");
    assertEquals("spec_o_100_c7", c.main());
    assertEquals(1024, c.block());
    assertEquals(7 * (128 * 100 + 128), c.smem());
  }

  @Test
  void narrowpPlansByName() {
    // a warp per tile, DM accumulators in registers, blocks of one warp
    // (W an SM: the kernel's register cap), launched as narrow (the weights by value, any start)
    CudaPlan p = CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "narrowp17_u2p_w16");
    assertEquals("narrowp-17_u2p_w16", p.name());
    assertEquals("narrow", p.family());
    assertEquals("narrowp_o_17_u2p_w16", p.main());
    assertEquals(null, p.fallback());
    assertEquals(32, p.block());
    assertEquals(0, p.smem());
    assertEquals(17, p.sliceFeatures()); // the plain slice layout
    assertEquals(false, p.quads());
    assertEquals(
        "narrowp_o_20_u4_w12",
        CudaPlan.choose(19, 1000, H200_SMEM, FREE, true, "narrowp20_u4_w12").main());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(18, 1000, H200_SMEM, FREE, true, "narrowp17_u4_w16"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(16, 1000, H200_SMEM, FREE, true, "narrowp17_u4_w16"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(17, 1000, H200_SMEM, FREE, false, "narrowp17_u4_w16"));
  }

  @Test
  void splitPlansByName() {
    CudaPlan p = CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "split2x16_u4t4");
    assertEquals("split-2x16_u4t4", p.name());
    assertEquals("split", p.family());
    assertEquals("split_o_2x16_u4t4", p.main());
    assertEquals(256, p.block()); // 4 teams of 2 warps
    assertEquals(4 * (4 * 2 * 4 * 32 + 2 * 16), p.smem()); // the residuals, then the weights
    assertEquals(17, p.sliceFeatures()); // the plain slice layout
    assertEquals(false, p.quads());
    assertEquals(4, CudaPlan.splitTeams(p));
    CudaPlan q = CudaPlan.choose(64, 1000, H200_SMEM, FREE, true, "split4x16_u2t2p");
    assertEquals("split_o_4x16_u2t2p", q.main());
    assertEquals(256, q.block());
    assertEquals(2, CudaPlan.splitTeams(q));
    // comparison shapes of spec: another register ring, or 3 chain warps (block 3 + 13 warps)
    CudaPlan r = CudaPlan.choose(61, 1000, H200_SMEM, FREE, true, "spec64_r16");
    assertEquals("spec_o_64_r16", r.main());
    assertEquals("pipes_o_2_2", r.fallback());
    assertEquals(CudaPlan.choose(61, 1000, H200_SMEM, FREE, true, "spec64").block(), r.block());
    CudaPlan c = CudaPlan.choose(101, 1000, H200_SMEM, FREE, true, "spec104_c3");
    assertEquals("spec_o_104_c3", c.main());
    assertEquals(32 * (3 + 13), c.block());
    // the L2-prefetch shapes of split and spec (same block, same memory)
    CudaPlan sf = CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "split2x9_u8t4f1");
    assertEquals("split_o_2x9_u8t4f1", sf.main());
    assertEquals(4, CudaPlan.splitTeams(sf));
    assertEquals(
        CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "split2x9_u8t4").smem(), sf.smem());
    CudaPlan sg = CudaPlan.choose(45, 1000, H200_SMEM, FREE, true, "split4x12_u2t2pg2");
    assertEquals("split_o_4x12_u2t2pg2", sg.main());
    assertEquals(2, CudaPlan.splitTeams(sg));
    CudaPlan pf = CudaPlan.choose(100, 1000, H200_SMEM, FREE, true, "spec104_f1");
    assertEquals("spec_o_104_f1", pf.main());
    assertEquals("pipes_o_w104", pf.fallback());
    assertEquals(32 * 19, pf.block());
    // K F must hold d; ordered only
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(33, 1000, H200_SMEM, FREE, true, "split2x16_u4t4"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(24, 1000, H200_SMEM, FREE, false, "split2x16_u4t4"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(24, 1000, H200_SMEM, FREE, true, "split2x16"));
  }

  @Test
  void forcedPlansThatDoNotFitAreRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(17, 1000, H200_SMEM, FREE, true, "small"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(49, 1000, H200_SMEM, FREE, true, "narrow"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(16, 1000, H200_SMEM, FREE, true, "narrow"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1024, 1000, H200_SMEM, FREE, true, "deep"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(100, 1000, H200_SMEM, FREE, true, "spec64"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(64, 1000, H200_SMEM, FREE, true, "quad2"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(64, 1000, H200_SMEM, FREE, true, "nope"));
  }

  /** deepf: its kernels, warps and shared memory; refused at d <= 1024. */
  @Test
  void deepfPlanShapes() {
    CudaPlan f = CudaPlan.choose(2051, 1000, H200_SMEM, FREE, true, "deepf");
    assertEquals("deepf", f.family());
    assertEquals("deepf_o", f.main());
    assertEquals(null, f.grad());
    assertEquals(32 * 8, f.block()); // 4 chain warps, 4 gradient warps
    assertEquals(16 * 513 + 16, f.smem()); // the weights in whole chunks of 4, the tickets
    assertEquals(2051, f.sliceFeatures()); // the plain slice layout (any batch start)
    assertEquals("deepfc_o", CudaPlan.choose(4096, 1000, H200_SMEM, FREE, true, "deepfc").main());
    assertEquals(32 * 12, CudaPlan.choose(4096, 1000, H200_SMEM, FREE, true, "deepfd").block());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1024, 1000, H200_SMEM, FREE, true, "deepf"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, false, "deepf"));
  }

  /**
   * deepw and deepx: kernels, warps, shared memory (deepx: the weights and the loader warps' ring
   * of 6 x 64 rows); one block an SM (family deepw); refused at d <= 1024 and unordered.
   */
  @Test
  void deepwAndDeepxPlanShapes() {
    CudaPlan w = CudaPlan.choose(2051, 1000, H200_SMEM, FREE, true, "deepw");
    assertEquals("deepw", w.family());
    assertEquals("deepw_o", w.main());
    assertEquals(null, w.grad());
    assertEquals(32 * 8, w.block()); // 1 chain warp, 7 gradient warps
    assertEquals(16 * 513, w.smem());
    assertEquals(32 * 8, CudaPlan.choose(4096, 1000, H200_SMEM, FREE, true, "deepwb").block());
    CudaPlan x = CudaPlan.choose(8190, 1000, H200_SMEM, FREE, true, "deepxb");
    assertEquals("deepw", x.family());
    assertEquals("deepxb_o", x.main());
    assertEquals(32 * (1 + 6 + 8), x.block()); // chain, loaders, gradient warps
    assertEquals(16 * 2048 + 4 * 32 * 64 * 6 + 16, x.smem());
    assertEquals(8190, x.sliceFeatures());
    assertEquals(
        32 * (1 + 6 + 4), CudaPlan.choose(1025, 1000, H200_SMEM, FREE, true, "deepx").block());
    assertEquals(
        32 * (1 + 6 + 2), CudaPlan.choose(1025, 1000, H200_SMEM, FREE, true, "deepxc").block());
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1024, 1000, H200_SMEM, FREE, true, "deepxb"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, false, "deepw"));
  }

  /**
   * deept and deeph: comparison plans of the sm_90 module, forced only; one block an SM, offset
   * batches on deepxb_o; refused without compute capability 9.0, at d <= 1024, unordered, and where
   * the ring does not fit (64 x 24 at 8,190: 229,848 bytes).
   */
  @Test
  void deeptAndDeephPlanShapes() {
    CudaPlan t = CudaPlan.choose(8190, 1000, H200_SMEM, FREE, true, "deept64x24", true);
    assertEquals("deept-64x24", t.name());
    assertEquals("deept", t.family());
    assertEquals("deept_o_64x24", t.main());
    assertEquals("deepxb_o", t.fallback());
    assertEquals(32 * (2 + 8), t.block()); // chain, producer, gradient warps
    assertEquals(16 * 2048 + 128 * 64 * 24 + 20 * 24, t.smem());
    CudaPlan h = CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "deeph64x32", true);
    assertEquals("deeph_o_64x32", h.main());
    assertEquals(16 * 512 + 64 * 64 * 32 + 20 * 32, h.smem());
    assertEquals("deepxb", plan(2048, 1000, H200_SMEM, FREE)); // the ladder keeps deepxb
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "deept64x16", false));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(1024, 1000, H200_SMEM, FREE, true, "deept64x16", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, false, "deeph64x32", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(8190, 1000, 200_000, FREE, true, "deept64x24", true));
    assertThrows(
        IllegalArgumentException.class,
        () -> CudaPlan.choose(2048, 1000, H200_SMEM, FREE, true, "deept64x8", true));
  }
}
