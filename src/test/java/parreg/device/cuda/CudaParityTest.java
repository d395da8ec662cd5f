package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import parreg.device.Bits;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReferenceKernel;
import parreg.device.RunContract;

/**
 * Bit-for-bit parity of S_p, the loss sum and the mass with {@link ReferenceKernel} on random data
 * (zeros of both signs, binary32 subnormals, tiny and large exponents), with and without bias,
 * whole partitions and batches at offsets, every kernel plan.
 */
@Tag("gpu")
class CudaParityTest {

  static Stream<Arguments> shapes() {
    List<Arguments> a = new ArrayList<>();
    for (int d : new int[] {1, 3, 16, 256, 1024}) {
      for (int n : new int[] {1, 255, 257, 1_000_007}) {
        a.add(Arguments.of(d, n));
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "d={0} N={1}")
  @MethodSource("shapes")
  void matchesTheReference(int d, int n) {
    CudaTestSupport.devicesOrSkip();
    Partition p = CudaTestSupport.partition(31L * d + n, n, d);
    for (boolean bias : new boolean[] {false, true}) {
      check(p, bias, null, 3);
    }
  }

  static Stream<Arguments> plans() {
    return Stream.of(
        Arguments.of(1, 70_001, "small"),
        Arguments.of(2, 5_000, "small"),
        Arguments.of(5, 5_003, "small"),
        Arguments.of(8, 4_097, "small"),
        Arguments.of(16, 5_000, "large1"),
        Arguments.of(16, 5_000, "large2"),
        Arguments.of(16, 5_000, "twopass"),
        Arguments.of(17, 9_000, null),
        Arguments.of(33, 3_073, null),
        Arguments.of(100, 2_049, "large1"),
        Arguments.of(100, 2_049, "large2"),
        Arguments.of(200, 40_000, null),
        Arguments.of(256, 3_000, "large1"),
        Arguments.of(256, 3_000, "twopass"),
        Arguments.of(257, 3_001, null),
        Arguments.of(4096, 1_100, null),
        Arguments.of(16, 5_000, "pipe1"),
        Arguments.of(16, 5_000, "pipe2"),
        Arguments.of(100, 2_049, "pipe1"),
        Arguments.of(256, 3_000, "large2"),
        Arguments.of(256, 3_000, "pipe1"),
        Arguments.of(64, 1_025, null),
        Arguments.of(32, 31, null),
        Arguments.of(129, 70_000, null),
        Arguments.of(16, 5_000, "flow2"),
        Arguments.of(33, 3_073, "flow2"),
        Arguments.of(100, 2_049, "flow2"),
        Arguments.of(200, 40_000, "flow2"),
        Arguments.of(256, 3_000, "flow2"),
        Arguments.of(256, 70_001, "flow2"),
        Arguments.of(256, 3_000, "pipe2"),
        Arguments.of(200, 40_000, "pipe2"),
        Arguments.of(16, 5_000, "flow1"),
        Arguments.of(100, 2_049, "flow1"),
        Arguments.of(256, 3_000, "flow1"),
        Arguments.of(256, 70_001, "flow1"),
        // quad layout (the default for 64 < d <= 256): d not a multiple of 4, several tiles per
        // block, batches at offsets (its pipe fallback reads the same layout)
        Arguments.of(65, 3_073, "quad2"),
        Arguments.of(100, 2_049, "quad2"),
        Arguments.of(127, 5_000, "quad2"),
        Arguments.of(128, 5_000, "quad2"),
        Arguments.of(129, 70_000, "quad2"),
        Arguments.of(200, 40_000, "quad2"),
        Arguments.of(255, 3_001, "quad2"),
        Arguments.of(256, 3_000, "quad2"),
        Arguments.of(256, 400_003, "quad2"),
        Arguments.of(66, 300_001, "quad2"),
        // warp-specialised (the default for 32 < d <= 256): every slice width, d just above and at
        // each width and not a multiple of 4, several tiles per block, a partial last tile,
        // batches at offsets (its pipe fallback reads the same padded layout)
        Arguments.of(17, 9_000, "spec"),
        Arguments.of(33, 3_073, "spec"),
        Arguments.of(40, 9_000, "spec"),
        Arguments.of(47, 5_003, "spec"),
        Arguments.of(64, 70_001, "spec"),
        Arguments.of(65, 3_073, "spec"),
        Arguments.of(100, 2_049, "spec"),
        Arguments.of(128, 5_000, "spec"),
        Arguments.of(129, 70_000, "spec"),
        Arguments.of(161, 40_000, "spec"),
        Arguments.of(192, 3_001, "spec"),
        Arguments.of(193, 5_000, "spec"),
        Arguments.of(255, 3_001, "spec"),
        Arguments.of(256, 3_000, "spec"),
        Arguments.of(256, 400_003, "spec"),
        Arguments.of(66, 300_001, "spec"),
        Arguments.of(100, 2_049, "spec256"),
        Arguments.of(40, 5_000, "spec192"));
  }

  static Stream<Arguments> widePlans() {
    return Stream.of(
        // lane groups (the default for 256 < d <= 1,024): every slice width, d just above and at
        // each width and not a multiple of 4, several tiles per block, a partial last tile,
        // batches at offsets (their two passes read the same octet layout); widep first
        Arguments.of(257, 3_001, "widep"),
        Arguments.of(385, 2_049, "widep"),
        Arguments.of(600, 5_003, "widep"),
        Arguments.of(767, 3_073, "widep"),
        Arguments.of(801, 9_000, "widep"),
        Arguments.of(1021, 5_000, "widep"),
        Arguments.of(768, 300_001, "widep"),
        Arguments.of(1024, 400_003, "widep"),
        Arguments.of(1024, 31, "widep"),
        Arguments.of(257, 3_001, "wide"),
        Arguments.of(300, 40_000, "wide"),
        Arguments.of(384, 5_000, "wide"),
        Arguments.of(385, 2_049, "wide"),
        Arguments.of(511, 70_001, "wide"),
        Arguments.of(512, 3_000, "wide"),
        Arguments.of(600, 5_003, "wide"),
        Arguments.of(767, 3_073, "wide"),
        Arguments.of(768, 300_001, "wide"),
        Arguments.of(801, 9_000, "wide"),
        Arguments.of(1021, 5_000, "wide"),
        Arguments.of(1024, 400_003, "wide"),
        Arguments.of(1024, 31, "wide"),
        Arguments.of(1024, 3_000, "twopass"),
        Arguments.of(2048, 2_100, null));
  }

  static Stream<Arguments> narrowAndDeepPlans() {
    return Stream.of(
        // narrow (the default for 16 < d <= 32; forced at 33..48 it runs narrow-48 of the
        // comparison module): every width, d at and just above each, not a multiple of 4, several
        // tiles per warp, a partial last tile, batches at offsets (the same kernel reads any
        // start); narrow64 (comparison module) at and below its width
        Arguments.of(17, 70_001, "narrow"),
        Arguments.of(23, 5_003, "narrow"),
        Arguments.of(24, 3_000, "narrow"),
        Arguments.of(25, 9_000, "narrow"),
        Arguments.of(31, 31, "narrow"),
        Arguments.of(32, 40_000, "narrow"),
        Arguments.of(33, 3_073, "narrow"),
        Arguments.of(47, 300_001, "narrow"),
        Arguments.of(48, 5_000, "narrow"),
        Arguments.of(17, 5_003, "narrow1"),
        Arguments.of(32, 40_000, "narrow1"),
        Arguments.of(49, 5_003, "narrow64"),
        Arguments.of(64, 70_001, "narrow64"),
        // the default at 33..42 (narrowp-48_u1p_w8), not a multiple of 4
        Arguments.of(40, 9_000, null),
        // deep (the default above 1,024): d not a multiple of 16 nor of 4, several tiles, a
        // partial last tile and slice, batches at offsets
        Arguments.of(1025, 3_001, "deep"),
        Arguments.of(1500, 5_003, "deep"),
        Arguments.of(2051, 40_000, "deep"),
        Arguments.of(4096, 1_100, "deep"),
        Arguments.of(8190, 2_049, "deep"));
  }

  static Stream<Arguments> moreWidthsPlans() {
    return Stream.of(
        // the spec plan at slice widths 48, 104 and 208 (its fallback at
        // those widths runs the batches at offsets), d at each width's lower end, inside it not a
        // multiple of 4, and at it
        Arguments.of(33, 3_073, "spec48"),
        Arguments.of(47, 5_003, "spec48"),
        Arguments.of(48, 70_001, "spec48"),
        Arguments.of(97, 2_049, "spec104"),
        Arguments.of(101, 40_000, "spec104"),
        Arguments.of(104, 5_000, "spec104"),
        Arguments.of(193, 3_001, "spec208"),
        Arguments.of(203, 9_000, "spec208"),
        Arguments.of(208, 70_001, "spec208"),
        // wide2 (C chain warps of TS sub-slices): every slice width, d just above and at each
        // width and not a multiple of 4, several tiles per block (150,001 and 200,003 samples),
        // a partial last tile and task, batches at offsets (the two passes)
        Arguments.of(257, 3_001, "wide2"),
        Arguments.of(301, 5_000, "wide2"),
        Arguments.of(384, 150_001, "wide2"),
        Arguments.of(385, 2_049, "wide2"),
        Arguments.of(511, 9_000, "wide2"),
        Arguments.of(512, 3_000, "wide2"),
        Arguments.of(600, 5_003, "wide2"),
        Arguments.of(767, 3_073, "wide2"),
        Arguments.of(768, 150_001, "wide2"),
        Arguments.of(801, 9_000, "wide2"),
        Arguments.of(1021, 5_000, "wide2"),
        Arguments.of(1024, 200_003, "wide2"),
        Arguments.of(1024, 31, "wide2"),
        // spec at 24 and 32 features (forced), wide2c (7 x 2 at 384, 7 x 1 at 768), wide2b (3 x 4
        // at 512)
        Arguments.of(17, 3_073, "spec24"),
        Arguments.of(23, 40_000, "spec24"),
        Arguments.of(25, 5_003, "spec32"),
        Arguments.of(32, 70_001, "spec32"),
        Arguments.of(301, 9_000, "wide2c"),
        Arguments.of(384, 150_001, "wide2c"),
        Arguments.of(509, 5_003, "wide2b"),
        Arguments.of(701, 3_073, "wide2c"),
        Arguments.of(768, 150_001, "wide2c"),
        Arguments.of(897, 5_003, null),
        Arguments.of(1021, 200_003, "widea"),
        // comparison kernels: wide2 at 768 with 2 x 4, widea (every chain lane runs a chain)
        Arguments.of(700, 5_003, "wide2b"),
        Arguments.of(385, 2_049, "widea"),
        Arguments.of(1024, 3_000, "widea"));
  }

  static Stream<Arguments> splitPlans() {
    return Stream.of(
        // the split-chain shapes (K warps a tile): d at the bottom of
        // each shape's range, inside it not a multiple of 4 (uneven feature shares), at its top;
        // several tiles a team (40,000 and more samples), a partial last tile and group, N = 31,
        // batches at offsets (the same kernel reads any start)
        Arguments.of(17, 70_001, "split2x16_u4t4"),
        Arguments.of(31, 31, "split2x16_u4t4"),
        Arguments.of(32, 40_000, "split2x16_u4t4"),
        Arguments.of(23, 5_003, "split2x16_u2t4p"),
        Arguments.of(32, 9_000, "split2x16_u2t4p"),
        Arguments.of(17, 9_000, "split2x12_u4t4"),
        Arguments.of(24, 3_000, "split2x12_u4t4"),
        Arguments.of(29, 5_003, "split4x8_u4t2"),
        Arguments.of(33, 3_073, "split3x16_u4t2"),
        Arguments.of(47, 40_000, "split3x16_u4t2"),
        Arguments.of(37, 5_003, "split4x12_u4t2"),
        Arguments.of(48, 70_001, "split4x12_u4t2"),
        Arguments.of(49, 3_073, "split4x16_u4t2"),
        Arguments.of(63, 9_000, "split4x16_u4t2"),
        Arguments.of(64, 70_001, "split4x16_u4t2"),
        Arguments.of(50, 5_003, "split4x16_u2t2p"),
        Arguments.of(64, 40_000, "split4x16_u2t2p"),
        Arguments.of(97, 2_049, "split7x16_u4t2"),
        Arguments.of(100, 40_000, "split7x16_u4t2"),
        Arguments.of(101, 9_000, "split8x13_u4t1"),
        Arguments.of(104, 3_000, "split8x13_u4t1"),
        Arguments.of(113, 5_003, "split8x16_u4t1"),
        Arguments.of(128, 70_001, "split8x16_u4t1"),
        // the ladder's split shapes (product module): 2x9 at 17..18, 2x12 at 19..24, 2x16 at
        // 25..32, 4x12 at 33..48
        Arguments.of(17, 300_001, null),
        Arguments.of(18, 5_003, null),
        Arguments.of(19, 5_003, null),
        Arguments.of(24, 9_000, null),
        Arguments.of(25, 3_073, null),
        Arguments.of(30, 31, null),
        Arguments.of(32, 150_001, null),
        Arguments.of(33, 9_000, null),
        Arguments.of(43, 40_000, null),
        Arguments.of(48, 150_001, null),
        // comparison shapes: fewer features a warp
        Arguments.of(17, 9_000, "split3x6_u8t5"),
        Arguments.of(18, 40_000, "split3x6_u8t5"),
        Arguments.of(23, 9_000, "split3x8_u8t5"),
        Arguments.of(29, 9_000, "split4x8_u4t2p"),
        Arguments.of(32, 40_000, "split4x8_u4t2p"),
        Arguments.of(43, 9_000, "split6x8_u4t2p"),
        Arguments.of(57, 9_000, "split8x8_u8t1"),
        Arguments.of(64, 40_000, "split8x8_u8t1"),
        // comparison shapes: the ladder's widths' neighbours
        Arguments.of(17, 40_000, "split2x9_u4t4p"),
        Arguments.of(18, 5_003, "split2x9_u8t4"),
        Arguments.of(17, 9_000, "split2x9_u8t4"),
        Arguments.of(23, 5_003, "split2x12_u2t4p"),
        Arguments.of(29, 9_000, "split2x16_u2t3p"),
        Arguments.of(41, 5_003, "split3x16_u2t5p"),
        Arguments.of(48, 40_000, "split3x16_u2t5p"),
        Arguments.of(45, 9_000, "split4x12_u2t2p"),
        Arguments.of(57, 5_003, "split4x16_u2t3p"),
        Arguments.of(64, 40_000, "split4x16_u2t3p"),
        // spec with the whole slice in the register ring, or 3 chain warps (batches at offsets
        // run the fallback)
        Arguments.of(47, 9_000, "spec48_r12"),
        Arguments.of(61, 9_000, "spec64_r16"),
        Arguments.of(101, 9_000, "spec104_c3"),
        Arguments.of(127, 9_000, "spec128_c3"));
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("splitPlans")
  void splitPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  static Stream<Arguments> midPlans() {
    return Stream.of(
        // widths 17 and 33..128: split and spec with an L2 prefetch of
        // the group / slice PD turns ahead (f: 128-byte lines, g: 32-byte lines); d not a multiple
        // of 4, several tiles a team or block, partial last tiles, groups and slices, batches at
        // offsets (split: the same kernel; spec: its pipe fallback)
        Arguments.of(17, 300_001, "split2x9_u8t4f1"),
        Arguments.of(18, 5_003, "split2x9_u8t4f1"),
        Arguments.of(17, 40_000, "split2x9_u8t4g1"),
        Arguments.of(18, 9_000, "split2x9_u8t4f2"),
        Arguments.of(23, 40_000, "split2x12_u2t4pf2"),
        Arguments.of(31, 9_000, "split2x16_u2t4pf2"),
        Arguments.of(45, 70_001, "split4x12_u2t2pf2"),
        Arguments.of(33, 5_003, "split4x12_u2t2pg2"),
        Arguments.of(47, 9_000, "split3x16_u2t5pf2"),
        Arguments.of(61, 40_000, "split4x16_u2t3pf2"),
        Arguments.of(47, 9_000, "spec48_f1"),
        Arguments.of(41, 40_000, "spec48_g1"),
        Arguments.of(45, 5_003, "spec48_f2"),
        Arguments.of(61, 70_001, "spec64_f1"),
        Arguments.of(64, 9_000, "spec64_g1"),
        Arguments.of(50, 40_000, "spec64_f2"),
        Arguments.of(101, 40_000, "spec104_f1"),
        Arguments.of(97, 9_000, "spec104_g1"),
        Arguments.of(103, 5_003, "spec104_f2"),
        Arguments.of(127, 40_000, "spec128_f1"),
        Arguments.of(113, 9_000, "spec128_g1"),
        Arguments.of(128, 5_003, "spec128_f2"));
  }

  static Stream<Arguments> midPlans2() {
    return Stream.of(
        // spec with 7 chain warps and slots (c7), and at two blocks an SM
        // with a ring of D (mD); batches at offsets run the pipe fallback
        Arguments.of(47, 9_000, "spec48_c7"),
        Arguments.of(61, 40_000, "spec64_c7"),
        Arguments.of(101, 9_000, "spec104_c7"),
        Arguments.of(127, 5_003, "spec128_c7"),
        Arguments.of(45, 70_001, "spec48_m6"),
        Arguments.of(61, 40_000, "spec64_m8"),
        Arguments.of(50, 5_003, "spec64_m4"),
        Arguments.of(127, 40_000, "spec128_m8"),
        Arguments.of(113, 9_000, "spec128_m4"),
        // the ladder's shapes since then (product module): spec-48_m6 at 43..48, spec-64_m4 at
        // 49..64, spec-104_c7 at 65..104 (batches at offsets: pipes_o_w48, pipes_o_2_2,
        // pipes_o_w104); the split chain just below 43
        Arguments.of(42, 9_000, null),
        Arguments.of(43, 40_000, null),
        Arguments.of(48, 150_001, null),
        Arguments.of(49, 5_003, null),
        Arguments.of(64, 150_001, null),
        Arguments.of(65, 9_000, null),
        Arguments.of(100, 70_001, null),
        Arguments.of(103, 5_003, null));
  }

  static Stream<Arguments> narrow6Plans() {
    return Stream.of(
        // spec's block on the plain slice layout (specpDM_CxAmMB): d not a
        // multiple of 4 (a partial last row of 16-byte vectors), several tiles a block, N small,
        // partial last tiles and slices, batches at offsets (the split kernel of d), with and
        // without bias; spec-24 at two blocks an SM; spec at slice width 100
        Arguments.of(17, 150_001, "specp20_6x5m2"),
        Arguments.of(18, 9_000, "specp20_6x5m3"),
        Arguments.of(19, 40_000, "specp20_6x5m4"),
        Arguments.of(20, 5_003, "specp20_6x5m3"),
        Arguments.of(17, 31, "specp20_6x5m3"),
        Arguments.of(21, 70_001, "specp24_6x6m2"),
        Arguments.of(24, 150_001, "specp24_6x6m3"),
        Arguments.of(23, 9_000, "specp24_4x6m3"),
        Arguments.of(17, 40_000, "specp24_6x3m3"),
        Arguments.of(30, 40_000, "specp32_6x8m2"),
        Arguments.of(24, 40_000, "spec24_m6"),
        Arguments.of(21, 9_000, "spec24_m6"),
        Arguments.of(100, 40_000, "spec100"),
        Arguments.of(97, 9_000, "spec100_c7"),
        Arguments.of(100, 70_001, "spec100_c7"));
  }

  static Stream<Arguments> narrow6Ladder() {
    return Stream.of(
        // the product module's specp-24_6x3m3 at 19..24 (a forced plan; batches at offsets:
        // split-2x12_u2t4p), the ladder's spec-100_c7 at 65..100 (pipes_o_w100) and spec-104_c7
        // at 101..104; the neighbours 18 and 25; then comparison shapes
        Arguments.of(18, 9_000, null),
        Arguments.of(19, 40_000, null),
        Arguments.of(21, 5_003, null),
        Arguments.of(24, 150_001, null),
        Arguments.of(22, 31, null),
        Arguments.of(25, 9_000, null),
        Arguments.of(65, 9_000, null),
        Arguments.of(97, 40_000, null),
        Arguments.of(100, 150_001, null),
        Arguments.of(101, 5_003, null),
        Arguments.of(17, 40_000, "specp24_6x3m4"),
        Arguments.of(23, 9_000, "specp24_7x3m3"),
        Arguments.of(19, 70_001, "specp24_7x3m4"),
        Arguments.of(18, 40_000, "specp20_7x5m4"));
  }

  static Stream<Arguments> narrow7Plans() {
    return Stream.of(
        // narrowp (a warp per tile, DM accumulators in registers, the
        // weights by value; comparison module): every shape at d = DM and below it, d not a
        // multiple of 4, several tiles a warp (150,001 samples: 147 tiles), N small, partial last
        // tiles and slices, batches at offsets (any start), with and without bias
        Arguments.of(17, 150_001, "narrowp17_u4_w16"),
        Arguments.of(17, 40_000, "narrowp17_u2p_w16"),
        Arguments.of(17, 9_000, "narrowp17_u4_w12"),
        Arguments.of(17, 31, "narrowp17_u2p_w12"),
        Arguments.of(17, 5_003, "narrowp17_u8_w8"),
        Arguments.of(17, 70_001, "narrowp17_u4p_w8"),
        Arguments.of(18, 40_000, "narrowp18_u4_w12"),
        Arguments.of(17, 9_000, "narrowp18_u2p_w12"),
        Arguments.of(19, 40_000, "narrowp20_u4_w12"),
        Arguments.of(20, 150_001, "narrowp20_u2p_w12"),
        Arguments.of(23, 40_000, "narrowp24_u4_w8"),
        Arguments.of(21, 9_000, "narrowp24_u2p_w8"));
  }

  static Stream<Arguments> narrow7Ladder() {
    return Stream.of(
        // the ladder's narrowp-17_u4_w16 at 17, narrowp-20_u2p_w12 at 18..20 (any batch start)
        // and narrowp-24_u1p_w16 at 21..24 (product module), the neighbours 16 and 25; then
        // comparison shapes
        Arguments.of(17, 150_001, null),
        Arguments.of(17, 31, null),
        Arguments.of(18, 40_000, null),
        Arguments.of(19, 9_000, null),
        Arguments.of(20, 70_001, null),
        Arguments.of(21, 5_003, null),
        Arguments.of(22, 31, null),
        Arguments.of(23, 40_000, null),
        Arguments.of(24, 150_001, null),
        Arguments.of(16, 9_000, null),
        Arguments.of(25, 9_000, null),
        Arguments.of(17, 40_000, "narrowp17_u1p_w16"),
        Arguments.of(19, 9_000, "narrowp20_u1p_w16"),
        Arguments.of(23, 40_000, "narrowp24_u1p_w16"),
        Arguments.of(24, 9_000, "narrowp24_u2p_w12"),
        Arguments.of(29, 40_000, "narrowp32_u1p_w12"),
        Arguments.of(32, 5_003, "narrowp32_u1p_w12"));
  }

  static Stream<Arguments> narrow8Ladder() {
    return Stream.of(
        // the ladder's narrowp-32_u1p_w12 at 25..32 (product module; any batch start: check() runs
        // batches at offsets), d below 32
        // and not a multiple of 4, several tiles a warp, N small; the neighbours 24 and 33
        Arguments.of(25, 150_001, null),
        Arguments.of(27, 9_000, null),
        Arguments.of(29, 31, null),
        Arguments.of(31, 40_000, null),
        Arguments.of(32, 70_001, null),
        Arguments.of(32, 5_003, null),
        Arguments.of(24, 9_000, null),
        Arguments.of(33, 9_000, null),
        // comparison shapes (comparison module)
        Arguments.of(26, 40_000, "narrowp28_u1_w16"),
        Arguments.of(30, 9_000, "narrowp32_u1_w16"),
        Arguments.of(37, 40_000, "narrowp40_u1_w12"),
        Arguments.of(43, 9_000, "narrowp48_u1_w10"),
        Arguments.of(48, 5_003, "narrowp48_u1p_w8"));
  }

  static Stream<Arguments> narrow8wLadder() {
    return Stream.of(
        // the ladder's narrowp-48_u1p_w8 at 33..42 (product module; any
        // batch start), d not a multiple of 4, several tiles a warp, N small; at 43..48 the
        // ladder runs spec-48_m6 where x padded to 48 fits (always here), so the product kernel
        // is forced there; the neighbours 32 and 49; the comparison shape 40_u1p_w8
        Arguments.of(33, 150_001, null),
        Arguments.of(35, 9_000, null),
        Arguments.of(38, 31, null),
        Arguments.of(40, 40_000, null),
        Arguments.of(41, 5_003, null),
        Arguments.of(42, 70_001, null),
        Arguments.of(45, 40_000, "narrowp48_u1p_w8"),
        Arguments.of(48, 9_000, "narrowp48_u1p_w8"),
        Arguments.of(32, 9_000, null),
        Arguments.of(49, 9_000, null),
        Arguments.of(39, 9_000, "narrowp40_u1p_w8"));
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow8wLadder")
  void narrow8wLadderMatchesTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow8Ladder")
  void narrow8LadderMatchesTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow7Ladder")
  void narrow7LadderMatchesTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow7Plans")
  void narrow7PlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow6Ladder")
  void narrow6LadderMatchesTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrow6Plans")
  void narrow6PlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("midPlans")
  void midPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("midPlans2")
  void midPlans2MatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  static Stream<Arguments> deepFusedPlans() {
    return Stream.of(
        // deepf (deep's passes fused, tickets): d just above 1,024, not a
        // multiple of 4 nor of 64 (the chain's ring), several tiles and rounds of the persistent
        // blocks (200,003 samples at 2,048: 196 tiles), a partial last tile and slice, batches at
        // offsets (the same kernel reads any start); the comparison shapes deepfb, deepfc, deepfd
        Arguments.of(1025, 3_001, "deepf"),
        Arguments.of(1500, 5_003, "deepf"),
        Arguments.of(2051, 40_000, "deepf"),
        Arguments.of(2048, 200_003, "deepf"),
        Arguments.of(4096, 1_100, "deepf"),
        Arguments.of(4099, 9_000, "deepf"),
        Arguments.of(8190, 2_049, "deepf"),
        Arguments.of(1027, 5_003, "deepfb"),
        Arguments.of(2050, 9_000, "deepfc"),
        Arguments.of(3001, 3_073, "deepfd"));
  }

  static Stream<Arguments> deepWindowPlans() {
    return Stream.of(
        // deepw (whole-slice chains, one block an SM, tickets): d just
        // above 1,024, not a multiple of 4 nor of the chain's 32-feature groups, many tiles and
        // rounds of the persistent blocks, a partial last tile and slice, batches at offsets (the
        // same kernel reads any start), up to 8,190; the other shapes deepwb..deepwe
        Arguments.of(1025, 3_001, "deepw"),
        Arguments.of(1500, 5_003, "deepw"),
        Arguments.of(2051, 40_000, "deepw"),
        Arguments.of(2048, 200_003, "deepw"),
        Arguments.of(4096, 1_100, "deepw"),
        Arguments.of(4099, 9_000, "deepw"),
        Arguments.of(8190, 2_049, "deepw"),
        Arguments.of(1027, 5_003, "deepwb"),
        Arguments.of(4094, 9_000, "deepwb"),
        Arguments.of(2050, 9_000, "deepwc"),
        Arguments.of(3001, 3_073, "deepwd"),
        Arguments.of(1030, 40_000, "deepwe"));
  }

  static Stream<Arguments> deepRingPlans() {
    return Stream.of(
        // deepx (one chain warp an SM fed by loader warps through a
        // shared-memory ring): d not a multiple of 4 nor of the 64-row chunk, many tiles and
        // rounds of the persistent blocks, batches at offsets, up to 8,190; shapes deepxb..deepxd
        Arguments.of(1025, 3_001, "deepx"),
        Arguments.of(1500, 5_003, "deepx"),
        Arguments.of(2051, 40_000, "deepx"),
        Arguments.of(2048, 200_003, "deepx"),
        Arguments.of(4099, 9_000, "deepx"),
        Arguments.of(8190, 2_049, "deepx"),
        Arguments.of(1027, 5_003, "deepxb"),
        Arguments.of(1500, 5_003, "deepxb"),
        Arguments.of(2051, 40_000, "deepxb"),
        Arguments.of(2048, 200_003, "deepxb"),
        Arguments.of(4099, 9_000, "deepxb"),
        Arguments.of(8190, 2_049, "deepxb"),
        Arguments.of(8189, 40_000, "deepxb"),
        Arguments.of(4094, 9_000, "deepxc"),
        Arguments.of(3001, 3_073, "deepxd"));
  }

  static Stream<Arguments> deepCopyPlans() {
    return Stream.of(
        // deept (the copy engine feeds the chain warp; compute capability
        // 9.0 only, skipped elsewhere as not fitting): d not a multiple of 4 nor of the chunk, many
        // tiles and rounds of the persistent blocks, a partial last slice, batches at offsets (run
        // by deepxb_o, the plan's fallback), up to 8,190 (64 x 24: the largest ring that fits
        // there); every shape
        Arguments.of(1025, 3_001, "deept64x16"),
        Arguments.of(2051, 40_000, "deept64x16"),
        Arguments.of(4099, 9_000, "deept64x16"),
        Arguments.of(8190, 2_049, "deept64x24"),
        Arguments.of(1500, 5_003, "deept64x24"),
        Arguments.of(3001, 3_073, "deept128x12"),
        Arguments.of(2050, 5_003, "deept32x32"),
        Arguments.of(2048, 200_003, "deept64x16"),
        // deepxb's longest cases (also in deepRingPlans)
        Arguments.of(4099, 9_000, "deepxb"),
        Arguments.of(8190, 2_049, "deepxb"),
        Arguments.of(2048, 200_003, "deepxb"),
        Arguments.of(8189, 40_000, "deepxb"));
  }

  static Stream<Arguments> deepHalfPlans() {
    return Stream.of(
        // deeph (half-slice chains fed by the copy engine; compute
        // capability 9.0 only): deepCopyPlans' checks, every shape
        Arguments.of(1025, 3_001, "deeph64x32"),
        Arguments.of(2051, 40_000, "deeph64x32"),
        Arguments.of(4099, 9_000, "deeph32x64"),
        Arguments.of(8190, 2_049, "deeph128x24"),
        Arguments.of(3001, 3_073, "deeph128x24"),
        Arguments.of(2048, 200_003, "deeph64x32"));
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("deepHalfPlans")
  void deepHalfPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("deepCopyPlans")
  void deepCopyPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("deepRingPlans")
  void deepRingPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("deepWindowPlans")
  void deepWindowPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("deepFusedPlans")
  void deepFusedPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  static Stream<Arguments> widetPlans() {
    return Stream.of(
        // widet (the copy engine fills the slots; compute capability 9.0
        // only, skipped elsewhere as not fitting): every slice width, d just above, inside and at
        // each width and not a multiple of 4, several tiles a block (150,001 / 200,003 samples),
        // a batch shorter than a slice, batches at offsets (the octet passes), with and without
        // bias; then every comparison shape once
        Arguments.of(257, 3_001, "widet"),
        Arguments.of(383, 9_000, "widet"),
        Arguments.of(384, 150_001, "widet"),
        Arguments.of(385, 2_049, "widet"),
        Arguments.of(509, 5_003, "widet"),
        Arguments.of(512, 150_001, "widet"),
        Arguments.of(601, 5_003, "widet"),
        Arguments.of(640, 3_000, "widet"),
        Arguments.of(701, 9_000, "widet"),
        Arguments.of(768, 150_001, "widet"),
        Arguments.of(801, 3_073, "widet"),
        Arguments.of(896, 5_000, "widet"),
        Arguments.of(1021, 5_000, "widet"),
        Arguments.of(1024, 200_003, "widet"),
        Arguments.of(1024, 31, "widet"),
        Arguments.of(896, 9_000, null), // the ladder's widet at 769..896 (2 x 2, rolled)
        Arguments.of(301, 9_000, "widet4x4"),
        Arguments.of(383, 5_003, "widet2x4"),
        Arguments.of(384, 9_000, "widet8x1"),
        Arguments.of(450, 9_000, "widet3x2"),
        Arguments.of(511, 9_000, "widet2x4"),
        Arguments.of(512, 5_003, "widet6x1"),
        Arguments.of(639, 5_003, "widet4x1"),
        Arguments.of(700, 9_000, "widet2x2"),
        Arguments.of(767, 5_003, "widet4x1"),
        Arguments.of(768, 9_000, "widet2x4"),
        Arguments.of(895, 5_003, "widet3x1"),
        Arguments.of(1001, 9_000, "widet3x1"),
        Arguments.of(1023, 5_003, "widet2x2"),
        Arguments.of(1024, 9_000, "widet6x1"));
  }

  static Stream<Arguments> widetMoreShapes() {
    return Stream.of(
        // more shapes: one sub-slice task for one chain warp
        // (1 x 4), three sub-slices a task (lanes 24..31 repeat), more tasks than slots hold
        // (2 x 4 at 896 and 1,024: a task waits for slots of the one before)
        Arguments.of(333, 9_000, "widet1x4"),
        Arguments.of(600, 5_003, "widet2x4"),
        Arguments.of(891, 9_000, "widet2x3"),
        Arguments.of(1023, 9_000, "widet2x3"),
        Arguments.of(1024, 5_003, "widet1x4"),
        Arguments.of(1022, 5_003, "widet2x4"),
        Arguments.of(500, 5_003, "widet1x4"),
        Arguments.of(620, 3_000, "widet4x2"),
        Arguments.of(700, 9_000, "widet1x4"),
        Arguments.of(850, 3_073, "widet1x4"),
        Arguments.of(880, 5_003, "widet2x4"),
        Arguments.of(890, 5_003, "widet3x2"),
        // widel (weights from global memory, group sums in registers, a slot more)
        Arguments.of(601, 9_000, "widel2x4"),
        Arguments.of(640, 5_003, "widel3x2"),
        Arguments.of(767, 9_000, "widel2x4"),
        Arguments.of(801, 5_003, "widel2x4"),
        Arguments.of(896, 9_000, "widel3x2"),
        Arguments.of(1021, 9_000, "widel3x2"),
        Arguments.of(1024, 150_001, "widel2x3"));
  }

  static Stream<Arguments> widecPlans() {
    return Stream.of(
        // widec (clusters of 2 widet blocks, each W features of a
        // sub-slice; compute capability 9.0 only): every shape, d at and inside each slice width
        // (the second block partly or, at 1,153 / 1,409 / 1,665 / 1,921, mostly padding), several
        // tiles a cluster
        // (150,001 / 200,003 samples), a batch shorter than a slice, batches at offsets (the octet
        // passes), with and without bias
        Arguments.of(1200, 5_003, "widec"),
        Arguments.of(1153, 9_000, "widec2x640_3x2"),
        Arguments.of(1280, 150_001, "widec2x640_3x2"),
        Arguments.of(1279, 31, "widec2x640_3x2"),
        Arguments.of(1409, 5_003, "widec2x768_2x4"),
        Arguments.of(1536, 9_000, "widec2x768_2x4"),
        Arguments.of(1665, 5_003, "widec2x896_3x2"),
        Arguments.of(1792, 9_000, "widec2x896_3x2"),
        Arguments.of(1921, 5_003, "widec2x1024_3x2"),
        Arguments.of(2048, 200_003, "widec2x1024_3x2"),
        Arguments.of(2047, 9_000, "widec2x1024_2x3"));
  }

  static Stream<Arguments> rolledChainPlans() {
    return Stream.of(
        // the chain as a rolled loop (chain_rolled) in widet-1024_3x2 and in widec-2x1024_3x2
        // (their own cases are among widetPlans and widecPlans), as in the ladder's 2 x 2 at 896
        // and 1,024
        Arguments.of(1024, 200_003, "widet3x2"),
        Arguments.of(1000, 9_000, "widet3x2"),
        Arguments.of(1024, 9_000, "widet"),
        Arguments.of(896, 9_000, "widet"),
        Arguments.of(2048, 9_000, "widec2x1024_3x2"),
        Arguments.of(1930, 5_003, "widec2x1024_3x2"));
  }

  static Stream<Arguments> groupTreePlans() {
    return Stream.of(
        // the group tree as a reduce-scatter (every widet / widec kernel
        // but widel's; the ladder's cases are among widetPlans and widecPlans) beside the butterfly
        // kernels kept for comparison (g), the ladder's 2 x 2 (rolled) at 1,024 and at 896
        Arguments.of(1024, 200_003, "widet"),
        Arguments.of(1000, 9_000, "widet"),
        Arguments.of(1024, 9_000, "widet3x2"),
        Arguments.of(1024, 9_000, "widet2x2g"),
        Arguments.of(1001, 5_003, "widet3x2g"),
        Arguments.of(896, 9_000, "widet3x2g"),
        Arguments.of(801, 5_003, "widet"),
        Arguments.of(896, 9_000, "widet3x2"),
        Arguments.of(768, 9_000, "widet2x4g"),
        Arguments.of(640, 9_000, "widet3x2g"),
        Arguments.of(512, 5_003, "widet2x4g"),
        Arguments.of(384, 9_000, "widet2x4g"));
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("groupTreePlans")
  void groupTreePlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("rolledChainPlans")
  void rolledChainPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("widecPlans")
  void widecPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("widetMoreShapes")
  void widetMoreShapesMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("widetPlans")
  void widetPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("moreWidthsPlans")
  void moreWidthsMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("narrowAndDeepPlans")
  void narrowAndDeepPlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("widePlans")
  void widePlansMatchTheReference(int d, int n, String plan) {
    everyPlanMatchesTheReference(d, n, plan);
  }

  @ParameterizedTest(name = "d={0} N={1} plan={2}")
  @MethodSource("plans")
  void everyPlanMatchesTheReference(int d, int n, String plan) {
    CudaTestSupport.devicesOrSkip();
    Partition p = CudaTestSupport.partition(7L * d + n, n, d);
    for (boolean bias : new boolean[] {false, true}) {
      check(p, bias, plan, 2);
    }
  }

  /** About 10^8 samples at d = 1: many tiles, three tree levels. */
  @Test
  void nearOneHundredMillionSamples() {
    CudaTestSupport.devicesOrSkip();
    int n = 100_000_007;
    Partition p = CudaTestSupport.partition(99, n, 1);
    check(p, true, null, 1);
  }

  /** Launches the whole partition and batches at offsets, several parameter vectors each. */
  static void check(Partition p, boolean bias, String plan, int rounds) {
    int n = p.samples();
    int d = p.features();
    SplittableRandom r = new SplittableRandom(n * 131L + d + (bias ? 1 : 0));
    try (CudaBackend b = CudaTestSupport.openOrSkip(true, plan)) {
      b.load(p, bias);
      List<int[]> batches = new ArrayList<>();
      batches.add(new int[] {0, n});
      if (n > 2) {
        batches.add(new int[] {1, n - 2});
      }
      if (n > 3000) {
        batches.add(new int[] {1029, Math.min(n - 1029, 2048 + 513)});
        // starts on a slice boundary (the flow plan's vector path) and ends inside a slice
        batches.add(new int[] {2112, n - 2112 - 7});
        batches.add(new int[] {n / 3, n - n / 3});
      }
      if ((long) n * d > 50_000_000L) {
        // keep the CPU reference affordable: the whole batch and one batch at an offset, once
        rounds = 1;
        batches.subList(1, batches.size() - 1).clear();
      }
      for (int round = 0; round < rounds; round++) {
        double[] params = CudaTestSupport.params(r, RunContract.parameterCount(d, bias));
        for (int[] batch : batches) {
          if (round > 0 && batch[1] > 50_000_000) {
            continue;
          }
          LocalSums want = ReferenceKernel.compute(p, batch[0], batch[1], params, bias);
          LocalSums got = b.launch(params, batch[0], batch[1]).await();
          String what =
              "d="
                  + d
                  + " N="
                  + n
                  + " bias="
                  + bias
                  + " plan="
                  + b.plan()
                  + " batch ["
                  + batch[0]
                  + ", +"
                  + batch[1]
                  + ") round "
                  + round;
          compare(want, got, what);
        }
      }
    }
  }

  static void compare(LocalSums want, LocalSums got, String what) {
    assertEquals(want.mass(), got.mass(), what + ": mass");
    assertEquals(want.length(), got.length(), what + ": gradient length");
    for (int j = 0; j < want.length(); j++) {
      if (Double.doubleToRawLongBits(want.gradient(j))
          != Double.doubleToRawLongBits(got.gradient(j))) {
        fail(
            what
                + ": S["
                + j
                + "] expected "
                + Bits.hex(want.gradient(j))
                + " ("
                + want.gradient(j)
                + ") got "
                + Bits.hex(got.gradient(j))
                + " ("
                + got.gradient(j)
                + ")");
      }
    }
    if (Double.doubleToRawLongBits(want.lossSum()) != Double.doubleToRawLongBits(got.lossSum())) {
      fail(
          what
              + ": loss expected "
              + Bits.hex(want.lossSum())
              + " ("
              + want.lossSum()
              + ") got "
              + Bits.hex(got.lossSum())
              + " ("
              + got.lossSum()
              + ")");
    }
  }
}
