// The benchmark's comparison kernels (parreg.bench.GpuGradientBench), never used for training:
// every plan's unordered (atomic) variant, FAMILY_a_..., whose bits depend on scheduling (what
// the ordered reduction costs is measured against them), large_o_K_2, the large plan at two
// slices a step, and widep_o_W (below), which the product's plan ladder never picks. The bodies are the product's
// (device/src/main/resources/parreg/kernels/local_sums.cuh); scripts/build/gen-ptx.sh writes the PTX
// beside this file with the product's flags.

#include "local_sums.cuh"

SMALL_KERNEL(small_a_1, 1, 16, false)
SMALL_KERNEL(small_a_2, 2, 8, false)
SMALL_KERNEL(small_a_4, 4, 8, false)
SMALL_KERNEL(small_a_8, 8, 4, false)
SMALL_KERNEL(small_a_16, 16, 4, false)
// narrow-24/32 (16 < d <= 32) and spec-24 with its fallback: slower than the split chain (2.51
// TB/s at d = 32 for narrow-32 where split-2x16 read 3.95; one H200, 2026-11-30)
NARROW_KERNEL(narrow_o_24, 24, 2, true)
NARROW_KERNEL(narrow_o_32, 32, 2, true)
SPEC_KERNEL(spec_o_24, 6, 6, 6, 6, 6, true)
PIPEQ_KERNEL(pipes_o_w24, 1, true, 24)
// spec-48 and its fallback: slower than the split chain (2.91 TB/s at d = 48 where
// split-4x12_u2t2p read 3.17; one H200, 2026-11-30)
SPEC_KERNEL(spec_o_48, 12, 6, 6, 6, 6, true)
NARROW_KERNEL(narrow_a_24, 24, 2, false)
NARROW_KERNEL(narrow_a_32, 32, 2, false)
NARROW_KERNEL(narrow_a_48, 48, 1, false)
// narrow-48 (33 <= d <= 48): measured slower than spec-64 there (1.93 vs 2.66 TB/s at d = 48,
// one H200, 2026-11-30); kept as a comparison
NARROW_KERNEL(narrow_o_48, 48, 1, true)
// narrow64 (49 <= d <= 64, the spec plan's widths): a comparison for spec-64
NARROW_KERNEL(narrow_o_64, 64, 1, true)
// narrow1 (16 < d <= 32): one slice loaded at a time (fewer registers, more warps an SM)
NARROW_KERNEL(narrow_o_24_1, 24, 1, true)
NARROW_KERNEL(narrow_o_32_1, 32, 1, true)
// split chain shapes besides the product's (forced plans "splitKxF_uUtT[p]")
SPLIT_KERNEL(split_o_2x16_u4t4, 2, 16, 4, 4, false, 2)
SPLIT_KERNEL(split_o_4x8_u4t2, 4, 8, 4, 2, false, 3)
SPLIT_KERNEL(split_o_3x16_u4t2, 3, 16, 4, 2, false, 2)
SPLIT_KERNEL(split_o_4x12_u4t2, 4, 12, 4, 2, false, 2)
SPLIT_KERNEL(split_o_4x16_u4t2, 4, 16, 4, 2, false, 2)
SPLIT_KERNEL(split_o_4x16_u2t2p, 4, 16, 2, 2, true, 2)
SPLIT_KERNEL(split_o_7x16_u4t2, 7, 16, 4, 2, false, 1)
SPLIT_KERNEL(split_o_8x13_u4t1, 8, 13, 4, 1, false, 2)
SPLIT_KERNEL(split_o_8x16_u4t1, 8, 16, 4, 1, false, 2)
SPLIT_KERNEL(split_o_2x9_u4t4p, 2, 9, 4, 4, true, 2)
SPLIT_KERNEL(split_o_2x12_u4t4, 2, 12, 4, 4, false, 2)
SPLIT_KERNEL(split_o_2x16_u2t3p, 2, 16, 2, 3, true, 2)
SPLIT_KERNEL(split_o_3x16_u2t5p, 3, 16, 2, 5, true, 1)
SPLIT_KERNEL(split_o_4x16_u2t3p, 4, 16, 2, 3, true, 1)
SPLIT_KERNEL(split_o_3x6_u8t5, 3, 6, 8, 5, false, 1)
SPLIT_KERNEL(split_o_3x8_u8t5, 3, 8, 8, 5, false, 1)
SPLIT_KERNEL(split_o_4x8_u4t2p, 4, 8, 4, 2, true, 2)
SPLIT_KERNEL(split_o_6x8_u4t2p, 6, 8, 4, 2, true, 1)
SPLIT_KERNEL(split_o_8x8_u8t1, 8, 8, 8, 1, false, 2)
// spec with the whole slice in the chain warps' register ring (_rD) or 3 chain warps (_c3)
SPEC_KERNEL(spec_o_48_r12, 12, 6, 6, 12, 6, true)
SPEC_KERNEL(spec_o_64_r16, 16, 6, 8, 16, 6, true)
SPEC_KERNEL(spec_o_104_c3, 26, 3, 13, 13, 6, true)
SPEC_KERNEL(spec_o_128_c3, 32, 3, 8, 8, 6, true)
LARGE_KERNEL(large_o_1_2, 1, 2, true)
LARGE_KERNEL(large_o_2_2, 2, 2, true)
LARGE_KERNEL(large_o_4_2, 4, 2, true)
LARGE_KERNEL(large_o_8_2, 8, 2, true)
LARGE_KERNEL(large_a_1_1, 1, 1, false)
LARGE_KERNEL(large_a_2_1, 2, 1, false)
LARGE_KERNEL(large_a_4_1, 4, 1, false)
LARGE_KERNEL(large_a_8_1, 8, 1, false)
LARGE_KERNEL(large_a_1_2, 1, 2, false)
LARGE_KERNEL(large_a_2_2, 2, 2, false)
LARGE_KERNEL(large_a_4_2, 4, 2, false)
LARGE_KERNEL(large_a_8_2, 8, 2, false)
PIPE_KERNEL(pipe_a_1_1, 1, 1, false)
PIPE_KERNEL(pipe_a_2_1, 2, 1, false)
PIPE_KERNEL(pipe_a_4_1, 4, 1, false)
PIPE_KERNEL(pipe_a_8_1, 8, 1, false)
PIPE_KERNEL(pipe_a_1_2, 1, 2, false)
PIPE_KERNEL(pipe_a_2_2, 2, 2, false)
PIPE_KERNEL(pipe_a_4_2, 4, 2, false)
PIPE_KERNEL(pipe_a_8_2, 8, 2, false)
PIPEQ_KERNEL(pipeq_a_4_2, 4, false, 1)
PIPEQ_KERNEL(pipeq_a_8_2, 8, false, 1)
PIPEQ_KERNEL(pipes_a_2_2, 2, false, 2)
PIPEQ_KERNEL(pipes_a_4_2, 4, false, 2)
PIPEQ_KERNEL(pipes_a_6_2, 6, false, 2)
PIPEQ_KERNEL(pipes_a_8_2, 8, false, 2)
PIPEQ_KERNEL(pipes_a_w48, 2, false, 48)
PIPEQ_KERNEL(pipes_a_w104, 4, false, 104)
PIPEQ_KERNEL(pipes_a_w208, 7, false, 208)
FLOW_KERNEL(flow_a_1_1, 1, 1, 2, false)
FLOW_KERNEL(flow_a_2_1, 2, 1, 2, false)
FLOW_KERNEL(flow_a_4_1, 4, 1, 2, false)
FLOW_KERNEL(flow_a_8_1, 8, 1, 2, false)
FLOW_KERNEL(flow_a_1_2, 1, 2, 1, false)
FLOW_KERNEL(flow_a_2_2, 2, 2, 1, false)
FLOW_KERNEL(flow_a_4_2, 4, 2, 1, false)
FLOW_KERNEL(flow_a_8_2, 8, 2, 1, false)
QUAD_KERNEL(quad_a_4_2, 4, false)
QUAD_KERNEL(quad_a_8_2, 8, false)
SPEC_KERNEL(spec_a_48, 12, 6, 6, 6, 6, false)
SPEC_KERNEL(spec_a_104, 26, 6, 13, 13, 6, false)
SPEC_KERNEL(spec_a_208, 52, 6, 13, 13, 6, false)
SPEC_KERNEL(spec_a_64, 16, 6, 8, 8, 6, false)
SPEC_KERNEL(spec_a_128, 32, 6, 8, 8, 6, false)
SPEC_KERNEL(spec_a_192, 48, 6, 12, 8, 6, false)
SPEC_KERNEL(spec_a_256, 64, 6, 8, 8, 6, false)
extern "C" __global__ void __launch_bounds__(256) resid_a(SMALL_ARGS, float* __restrict__ rbuf) {
  resid_body<false>(SMALL_PASS, rbuf);
}
extern "C" __global__ void __launch_bounds__(256) grad_a(SMALL_ARGS, float* __restrict__ rbuf) {
  grad_body<false>(x, n, d, start, len, out, tiles, rbuf);
}
// the wide plan with the chain's shared-memory loads one group ahead (forced plan "widep"): bits
// equal to the reference, but slower than wide on an H200 (2026-11-30)
WIDE_KERNEL(widep_o_384, 96, 8, true)
WIDE_KERNEL(widep_o_512, 128, 8, true)
WIDE_KERNEL(widep_o_640, 160, 8, true)
WIDE_KERNEL(widep_o_768, 192, 8, true)
WIDE_KERNEL(widep_o_896, 224, 8, true)
WIDE_KERNEL(widep_o_1024, 256, 8, true)
// wide with every chain warp's lanes running chains (no divergent branch; forced plan "widea")
WIDEA_KERNEL(widea_o_384, 96, 12)
WIDEA_KERNEL(widea_o_512, 128, 16)
WIDEA_KERNEL(widea_o_640, 160, 8)
WIDEA_KERNEL(widea_o_768, 192, 16)
WIDEA_KERNEL(widea_o_896, 224, 8)
// wide2 shapes measured slower than the product's on an H200 (2026-11-30):
// wide2b (512: 3 x 4, 768: 2 x 4), wide2c (384: 7 x 2, 768: 7 x 1); spec at 32 features (2.34
// TB/s at d = 32, narrow-32 2.37-2.46) and its fallback
WIDE2_KERNEL(wide2b_o_512, 128, 3, 4, 4)
WIDE2_KERNEL(wide2b_o_768, 192, 2, 4, 4)
WIDE2_KERNEL(wide2c_o_384, 96, 7, 8, 2)
WIDE2_KERNEL(wide2c_o_768, 192, 7, 16, 1)
SPEC_KERNEL(spec_o_32, 8, 6, 8, 8, 6, true)
PIPEQ_KERNEL(pipes_o_1_2, 1, true, 2)
// deepf (d > 1,024): deep's two passes fused, x re-read from L2 (bits equal to the reference), but
// no faster than deep on an H200: 1.52 / 1.52 TB/s at d = 2,048 / 4,096 where deep read 1.51 /
// 1.53, 1.29 at 1,500 where deep read 1.59 (2026-12-01): DRAM still read
// about twice the data (the chains, starved by 32 KB of loads in flight an SM, are too slow for
// the re-read to find x in L2). Shapes: chain warps C (4), gradient warps A, ring D, F, US
// (CudaPlan.DEEPF_SHAPES)
DEEPF_KERNEL(deepf_o, 4, 4, 64, 16, 4)
DEEPF_KERNEL(deepfb_o, 4, 6, 32, 16, 2)
DEEPF_KERNEL(deepfc_o, 4, 4, 32, 16, 4)
DEEPF_KERNEL(deepfd_o, 4, 8, 32, 16, 2)
// widths 17 and 33..128: split and spec shapes with an L2
// prefetch of the group / slice PD turns ahead (forced plans "splitKxF_uUtT[p]fPD" / "...gPD",
// "specW_fPD" / "specW_gPD"; f: 128-byte lines, g: 32-byte lines); same arithmetic, same order
SPLIT_KERNEL_PF(split_o_2x9_u8t4f1, 2, 9, 8, 4, false, 2, 1, 128)
SPLIT_KERNEL_PF(split_o_2x9_u8t4g1, 2, 9, 8, 4, false, 2, 1, 32)
SPLIT_KERNEL_PF(split_o_2x9_u8t4f2, 2, 9, 8, 4, false, 2, 2, 128)
SPLIT_KERNEL_PF(split_o_2x12_u2t4pf2, 2, 12, 2, 4, true, 2, 2, 128)
SPLIT_KERNEL_PF(split_o_2x16_u2t4pf2, 2, 16, 2, 4, true, 2, 2, 128)
SPLIT_KERNEL_PF(split_o_4x12_u2t2pf2, 4, 12, 2, 2, true, 2, 2, 128)
SPLIT_KERNEL_PF(split_o_4x12_u2t2pg2, 4, 12, 2, 2, true, 2, 2, 32)
SPLIT_KERNEL_PF(split_o_3x16_u2t5pf2, 3, 16, 2, 5, true, 1, 2, 128)
SPLIT_KERNEL_PF(split_o_4x16_u2t3pf2, 4, 16, 2, 3, true, 1, 2, 128)
SPEC_KERNEL_PF(spec_o_48_f1, 12, 6, 6, 6, 6, 1, 128)
SPEC_KERNEL_PF(spec_o_48_g1, 12, 6, 6, 6, 6, 1, 32)
SPEC_KERNEL_PF(spec_o_48_f2, 12, 6, 6, 6, 6, 2, 128)
SPEC_KERNEL_PF(spec_o_64_f1, 16, 6, 8, 8, 6, 1, 128)
SPEC_KERNEL_PF(spec_o_64_g1, 16, 6, 8, 8, 6, 1, 32)
SPEC_KERNEL_PF(spec_o_64_f2, 16, 6, 8, 8, 6, 2, 128)
SPEC_KERNEL_PF(spec_o_104_f1, 26, 6, 13, 13, 6, 1, 128)
SPEC_KERNEL_PF(spec_o_104_g1, 26, 6, 13, 13, 6, 1, 32)
SPEC_KERNEL_PF(spec_o_104_f2, 26, 6, 13, 13, 6, 2, 128)
SPEC_KERNEL_PF(spec_o_128_f1, 32, 6, 8, 8, 6, 1, 128)
SPEC_KERNEL_PF(spec_o_128_g1, 32, 6, 8, 8, 6, 1, 32)
SPEC_KERNEL_PF(spec_o_128_f2, 32, 6, 8, 8, 6, 2, 128)
// 7 chain warps and 7 slots (forced "specW_c7"): one more slice in flight a block
SPEC_KERNEL(spec_o_48_c7, 12, 7, 6, 6, 7, true)
SPEC_KERNEL(spec_o_64_c7, 16, 7, 8, 8, 7, true)
SPEC_KERNEL(spec_o_128_c7, 32, 7, 8, 8, 7, true)
// two blocks an SM (forced "specW_mD", ring D): twice the chain warps and slots an SM (spec_o_48_m6,
// spec_o_64_m4 and spec_o_104_c7 are the product's, in local_sums.cu; pipes_o_w48 too)
SPEC_KERNEL_MB(spec_o_64_m8, 16, 6, 8, 8, 6, 2)
SPEC_KERNEL_MB(spec_o_128_m8, 32, 6, 8, 8, 6, 2)
SPEC_KERNEL_MB(spec_o_128_m4, 32, 6, 8, 4, 6, 2)
// deepw (d > 1,024): deepf with whole-slice chains on all 32 lanes, one or two chain warps an SM,
// an L2 prefetch ahead of the chains' loads and an evict-first re-read.
// Shapes (C, A, U, PF, F, US, CS; CudaPlan.DEEPW_SHAPES): deepw 1 chain warp, prefetch 128
// features ahead; deepwb 2 chain warps, 64 ahead; deepwc no prefetch; deepwd 8 features a
// gradient task; deepwe the re-read without the evict-first hint
DEEPW_KERNEL(deepw_o, 1, 7, 32, 128, 16, 4, true)
DEEPW_KERNEL(deepwb_o, 2, 6, 32, 64, 16, 4, true)
DEEPW_KERNEL(deepwc_o, 1, 7, 32, 0, 16, 4, true)
DEEPW_KERNEL(deepwd_o, 1, 7, 32, 128, 8, 4, true)
DEEPW_KERNEL(deepwe_o, 1, 7, 32, 128, 16, 4, false)
// deepx (d > 1,024): one chain warp an SM fed by 6 loader warps through a shared-memory ring.
// Shapes (A, F, US, CS; CudaPlan.DEEPX_GRAD_WARPS): deepx 4 gradient warps;
// deepxc 2; deepxd 4 without the evict-first re-read (deepxb, the ladder's, is in local_sums.cu)
DEEPX_KERNEL(deepx_o, 4, 16, 4, true)
DEEPX_KERNEL(deepxc_o, 2, 16, 4, true)
DEEPX_KERNEL(deepxd_o, 4, 16, 4, false)
// widths 17..32 and 100: spec's warp-specialised block on the plain slice
// layout (forced plans "specpDM_CxAmMB": DM features at most, C chain warps and slots, A
// accumulating warps, MB blocks an SM; batches at offsets run the split kernel of d), spec-24 at two
// blocks an SM, and spec at slice width 100 (25 accumulating warps of one quad, ring 5; no padding
// at d = 97..100)
SPECP_KERNEL(specp_o_20_6x5m2, 20, 6, 5, 2)
SPECP_KERNEL(specp_o_20_6x5m3, 20, 6, 5, 3)
SPECP_KERNEL(specp_o_20_6x5m4, 20, 6, 5, 4)
SPECP_KERNEL(specp_o_24_6x6m2, 24, 6, 6, 2)
SPECP_KERNEL(specp_o_24_6x6m3, 24, 6, 6, 3)
SPECP_KERNEL(specp_o_24_4x6m3, 24, 4, 6, 3)
SPECP_KERNEL(specp_o_32_6x8m2, 32, 6, 8, 2)
// 7 chain warps and slots, four blocks an SM (6x3m3 was the fastest at 24, no shape beat split at
// 17; specp_o_24_6x3m3, spec_o_100_c7 and pipes_o_w100 are in local_sums.cu)
SPECP_KERNEL(specp_o_24_6x3m4, 24, 6, 3, 4)
SPECP_KERNEL(specp_o_24_7x3m3, 24, 7, 3, 3)
SPECP_KERNEL(specp_o_24_7x3m4, 24, 7, 3, 4)
SPECP_KERNEL(specp_o_20_7x5m4, 20, 7, 5, 4)
SPEC_KERNEL_MB(spec_o_24_m6, 6, 6, 6, 6, 6, 2)
SPEC_KERNEL(spec_o_100, 25, 6, 25, 5, 6, true)
// d = 17..24: narrowp_body, a warp per tile with all DM accumulators in
// registers (small-16's shape, 3.95 TB/s at d = 16), the weights by value, U slices a group (p: the
// next group loaded while this one computes), blocks of one warp, W an SM (the register cap
// 65,536 / (32 W); forced plans "narrowpDM_uU[p]_wW"). Registers (ptxas, sm_90): 17_u4 / 17_u2p at
// W = 16: 128 (no spill), at W = 12: 147 / 151 (13 warps an SM); 17_u8 / 17_u4p at W = 8: 228 /
// 224; 18 at 12: 153 / 156; 20 at 12: 167 / 164; 24 at 8: 198 / 200. The ladder's 17_u4_w16 (d =
// 17) and 20_u2p_w12 (18..20) are in local_sums.cu; 24_u2p_w8 lost to specp-24_6x3m3 on one H200
// (3.41 / 3.55 at 21, 3.55 / 3.66 at 24) and beat it on another (3.79 / 3.57 at 24)
NARROWP_KERNEL(narrowp_o_24_u2p_w8, 24, 2, true, 32, 8)
NARROWP_KERNEL(narrowp_o_17_u2p_w16, 17, 2, true, 32, 16)
NARROWP_KERNEL(narrowp_o_17_u4_w12, 17, 4, false, 32, 12)
NARROWP_KERNEL(narrowp_o_17_u2p_w12, 17, 2, true, 32, 12)
NARROWP_KERNEL(narrowp_o_17_u8_w8, 17, 8, false, 32, 8)
NARROWP_KERNEL(narrowp_o_17_u4p_w8, 17, 4, true, 32, 8)
NARROWP_KERNEL(narrowp_o_18_u4_w12, 18, 4, false, 32, 12)
NARROWP_KERNEL(narrowp_o_18_u2p_w12, 18, 2, true, 32, 12)
NARROWP_KERNEL(narrowp_o_20_u4_w12, 20, 4, false, 32, 12)
NARROWP_KERNEL(narrowp_o_24_u4_w8, 24, 4, false, 32, 8)
// one slice a group loaded ahead (u1p: 115 / 127 / 128 registers at 17 / 20 / 24, 16 warps an SM),
// 24_u2p at 12 warps (168 registers), and at 25..32 (168 registers, 12 warps); on one H200 (TB/s,
// bits=ref, 2026-12-01): 20_u1p_w16 3.79 at d = 20 (20_u2p_w12 3.78); 24_u1p_w16 3.82 / 3.97 at
// 21 / 24 where specp-24_6x3m3 read 3.55 / 3.66 (24_u2p_w12 3.80 / 3.66); 32_u1p_w12 3.84 at 32
// where split-2x16_u2t4p read 3.24; 17_u1p_w16 not timed
NARROWP_KERNEL(narrowp_o_17_u1p_w16, 17, 1, true, 32, 16)
NARROWP_KERNEL(narrowp_o_20_u1p_w16, 20, 1, true, 32, 16)
// (24_u1p_w16, the ladder's at 21..24, is in local_sums.cu)
NARROWP_KERNEL(narrowp_o_24_u2p_w12, 24, 2, true, 32, 12)
// (32_u1p_w12, the ladder's at 25..32, is in local_sums.cu)
// at 25..32 one slice at a time without the load ahead, 16 warps an SM (28_u1_w16
// 124 registers, 32_u1_w16 128; ptxas sm_90, no spill), and 33..48, where split-4x12_u2t2p and
// spec-48_m6 read 2.9-3.8: 40_u1_w12 167, 48_u1_w10 168, 48_u1p_w8 254 registers, no spill
// (40_u1p_w10 and 28_u1p_w14 spill: not instantiated). On one H200 (TB/s, bits=ref, one row each,
// after the ladder's default, 2026-12-01): 28_u1_w16 3.59 / 3.86 at d = 25 / 28 (narrowp-32_u1p_w12 3.48 /
// 3.59), 32_u1_w16 3.83 / 3.69 at 28 / 32 (3.59 / 3.77); 40_u1_w12 3.22, 48_u1_w10 3.26 at 40
// (split-4x12_u2t2p 2.75); 48_u1p_w8 3.75, 48_u1_w10 3.44 at 48 (spec-48_m6 3.71)
NARROWP_KERNEL(narrowp_o_28_u1_w16, 28, 1, false, 32, 16)
NARROWP_KERNEL(narrowp_o_32_u1_w16, 32, 1, false, 32, 16)
NARROWP_KERNEL(narrowp_o_40_u1_w12, 40, 1, false, 32, 12)
NARROWP_KERNEL(narrowp_o_48_u1_w10, 48, 1, false, 32, 10)
// (48_u1p_w8, the ladder's at 33..48 where spec-48_m6 does not run, is in local_sums.cu);
// 40_u1p_w8 (232 registers, no spill; 40_u1p_w9 spills) at 33..40
NARROWP_KERNEL(narrowp_o_40_u1p_w8, 40, 1, true, 32, 8)
