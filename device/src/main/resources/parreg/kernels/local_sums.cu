// parreg local sums on CUDA: the kernels the product runs (parreg.device.cuda.CudaBackend and
// CudaPlan choose among them). Their bodies are in local_sums.cuh; each kernel here is one body
// at one shape, ordered (ReductionOrder: one value per coordinate and tile, then tree_pass).
//
// Regenerate the PTX beside this file with scripts/build/gen-ptx.sh (never by hand).
//
// Names: FAMILY_o_K[_P] (o: ordered; K accumulators per thread = d / 32 rounded up to a power of
// two, P slices per step), spec_o_W and wide_o_W (slice width W features), small_o_DMAX (at most
// DMAX features), split_o_KxF_uUtT[p] (K warps of F features a tile), specp_o_DM_CxAmMB (at most
// DM features, C chain and A accumulating warps, MB blocks an SM), narrowp_o_DM_uU[p]_wW (at most
// DM features, U slices a group, W one-warp blocks an SM), deepr_o / deepg_o (the deep
// plan's two passes).

#include "local_sums.cuh"

SMALL_KERNEL(small_o_1, 1, 16, true)
SMALL_KERNEL(small_o_2, 2, 8, true)
SMALL_KERNEL(small_o_4, 4, 8, true)
SMALL_KERNEL(small_o_8, 8, 4, true)
SMALL_KERNEL(small_o_16, 16, 4, true)
// 17..48: the split chain, two or four warps a tile (forced plans "split"; split_o_2x12_u2t4p is
// also specp's fallback for batches at offsets)
SPLIT_KERNEL(split_o_2x9_u8t4, 2, 9, 8, 4, false, 2)
SPLIT_KERNEL(split_o_2x12_u2t4p, 2, 12, 2, 4, true, 2)
SPLIT_KERNEL(split_o_2x16_u2t4p, 2, 16, 2, 4, true, 2)
SPLIT_KERNEL(split_o_4x12_u2t2p, 4, 12, 2, 2, true, 2)
// 19..24, a forced plan: spec's block on the plain slice layout (specp_body), 6 chain warps, 3
// accumulating warps of 8 features, three blocks an SM: 3.74 TB/s at d = 24 where split-2x12_u2t4p
// read 3.36 on the same H200 (2026-12-01); batches at offsets run split-2x12_u2t4p
SPECP_KERNEL(specp_o_24_6x3m3, 24, 6, 3, 3)
// the ladder's at 17..20: a warp per tile, every accumulator in registers, the weights by value
// (narrowp_body), blocks of one warp, W an SM (the register cap): 3.91 / 3.94 TB/s at d = 17 where
// split-2x9_u8t4 read 3.05 / 3.10 on the same H200; 3.71-3.99 at 18..20 where split-2x9_u8t4 read
// 2.94 and specp-24_6x3m3 3.18-3.45 (two H200s, 2026-12-01, every row bits=ref)
NARROWP_KERNEL(narrowp_o_17_u4_w16, 17, 4, false, 32, 16)
NARROWP_KERNEL(narrowp_o_20_u2p_w12, 20, 2, true, 32, 12)
// the ladder's at 21..24: one slice loaded ahead, 16 warps an SM (128 registers): 3.82 / 3.97 TB/s
// at d = 21 / 24 where specp-24_6x3m3 read 3.55 / 3.66 on one H200; on another 3.69 / 3.66 / 3.85
// at 21 / 22 / 24 where specp read 3.38 / 3.55 / 3.82 (a tie at 24; 2026-12-01)
NARROWP_KERNEL(narrowp_o_24_u1p_w16, 24, 1, true, 32, 16)
// the ladder's at 25..32: one slice loaded ahead, 12 warps an SM (168 registers, no spill): 3.84
// TB/s at d = 32 where split-2x16_u2t4p read 3.24 / 3.27 on two H200s; on a third 3.48 / 3.59 /
// 3.77 at d = 25 / 28 / 32 where split-2x16_u2t4p read 2.80 / 2.88 / 3.02 (2026-12-01)
NARROWP_KERNEL(narrowp_o_32_u1p_w12, 32, 1, true, 32, 12)
// the ladder's at 33..48 where spec_o_48_m6 does not run: one slice loaded ahead, 8 warps an SM
// (254 registers, no spill): 2.97 / 3.24 / 3.22 / 3.52 TB/s at d = 33 / 36 / 40 / 42 where
// split-4x12_u2t2p read 2.39 / 2.81 / 2.98 / 2.96, 3.75 at d = 48 where spec-48_m6 read 3.71 (one
// H200 each, 2026-12-01, every row bits=ref)
NARROWP_KERNEL(narrowp_o_48_u1p_w8, 48, 1, true, 32, 8)
LARGE_KERNEL(large_o_1_1, 1, 1, true)
LARGE_KERNEL(large_o_2_1, 2, 1, true)
LARGE_KERNEL(large_o_4_1, 4, 1, true)
LARGE_KERNEL(large_o_8_1, 8, 1, true)
PIPE_KERNEL(pipe_o_1_1, 1, 1, true)
PIPE_KERNEL(pipe_o_2_1, 2, 1, true)
PIPE_KERNEL(pipe_o_4_1, 4, 1, true)
PIPE_KERNEL(pipe_o_8_1, 8, 1, true)
PIPE_KERNEL(pipe_o_1_2, 1, 2, true)
PIPE_KERNEL(pipe_o_2_2, 2, 2, true)
PIPE_KERNEL(pipe_o_4_2, 4, 2, true)
PIPE_KERNEL(pipe_o_8_2, 8, 2, true)
PIPEQ_KERNEL(pipeq_o_4_2, 4, true, 1)
PIPEQ_KERNEL(pipeq_o_8_2, 8, true, 1)
PIPEQ_KERNEL(pipes_o_2_2, 2, true, 2)
PIPEQ_KERNEL(pipes_o_4_2, 4, true, 2)
PIPEQ_KERNEL(pipes_o_6_2, 6, true, 2)
PIPEQ_KERNEL(pipes_o_8_2, 8, true, 2)
// the spec plan's fallbacks at its slice widths that are not a multiple of 32
PIPEQ_KERNEL(pipes_o_w104, 4, true, 104)
PIPEQ_KERNEL(pipes_o_w208, 7, true, 208)
FLOW_KERNEL(flow_o_1_1, 1, 1, 2, true)
FLOW_KERNEL(flow_o_2_1, 2, 1, 2, true)
FLOW_KERNEL(flow_o_4_1, 4, 1, 2, true)
FLOW_KERNEL(flow_o_8_1, 8, 1, 2, true)
FLOW_KERNEL(flow_o_1_2, 1, 2, 1, true)
FLOW_KERNEL(flow_o_2_2, 2, 2, 1, true)
FLOW_KERNEL(flow_o_4_2, 4, 2, 1, true)
FLOW_KERNEL(flow_o_8_2, 8, 2, 1, true)
QUAD_KERNEL(quad_o_4_2, 4, true)
QUAD_KERNEL(quad_o_8_2, 8, true)
// slice widths 104 and 208: less padding at d = 97..104 and 193..208; their
// accumulating warps (13) each own 2 and 4 quads, their rings (D) divide Q
SPEC_KERNEL(spec_o_104, 26, 6, 13, 13, 6, true)
SPEC_KERNEL(spec_o_208, 52, 6, 13, 13, 6, true)
SPEC_KERNEL(spec_o_64, 16, 6, 8, 8, 6, true)
// the ladder's spec shapes at 43..64 and 101..104: two blocks an SM at widths 48 (ring 6) and 64
// (ring 4): 3.83 / 3.84 TB/s at d = 48 / 64 where split-4x12_u2t2p read 3.15 and spec-64 3.31 on
// the same H200; 7 chain warps and 7 slots at 104: 3.47 at d = 100 where spec-104 read 3.08
// (2026-12-01). pipes_o_w48: spec-48's fallback
SPEC_KERNEL_MB(spec_o_48_m6, 12, 6, 6, 6, 6, 2)
PIPEQ_KERNEL(pipes_o_w48, 2, true, 48)
SPEC_KERNEL_MB(spec_o_64_m4, 16, 6, 8, 4, 6, 2)
SPEC_KERNEL(spec_o_104_c7, 26, 7, 13, 13, 7, true)
// the ladder's at 65..100: slice width 100 (no padding at d = 97..100, 4 % less than 104 below),
// 7 chain warps and slots, 25 accumulating warps of one quad, a ring of 5 quads: 3.55 / 3.42 TB/s at
// d = 100 where spec-104_c7 read 3.29 / 3.35 on two H200s (within 3 % of it on a third), 2.41 /
// 2.86 at d = 65 / 80 where it read 2.17 / 2.66 (2026-12-01); its fallback
SPEC_KERNEL(spec_o_100_c7, 25, 7, 25, 5, 7, true)
PIPEQ_KERNEL(pipes_o_w100, 4, true, 100)
SPEC_KERNEL(spec_o_128, 32, 6, 8, 8, 6, true)
SPEC_KERNEL(spec_o_192, 48, 6, 12, 8, 6, true)
SPEC_KERNEL(spec_o_256, 64, 6, 8, 8, 6, true)
WIDE_KERNEL(wide_o_384, 96, 12, false)
WIDE_KERNEL(wide_o_512, 128, 16, false)
WIDE_KERNEL(wide_o_640, 160, 8, false)
WIDE_KERNEL(wide_o_768, 192, 16, false)
WIDE_KERNEL(wide_o_896, 224, 8, false)
WIDE_KERNEL(wide_o_1024, 256, 16, false)
// the wide plan with C chain warps of TS sub-slices each (wide2_body): C TS slots where shared
// memory allows (Q, C, D, TS)
WIDE2_KERNEL(wide2_o_384, 96, 4, 4, 4)
WIDE2_KERNEL(wide2_o_512, 128, 6, 8, 2)
WIDE2_KERNEL(wide2_o_640, 160, 5, 8, 2)
WIDE2_KERNEL(wide2_o_768, 192, 4, 8, 2)
WIDE2_KERNEL(wide2_o_896, 224, 3, 8, 2)
WIDE2_KERNEL(wide2_o_1024, 256, 3, 8, 2)
// the wide plan with every chain lane running a chain (wide_body, ALL)
WIDEA_KERNEL(widea_o_1024, 256, 16)
// d > 1,024: the two passes of the deep plan (U = 16 features ahead, F = 16 features a warp)
DEEP_KERNELS(deepr_o, deepg_o, 16, 16)
// d > 1,024 where its ring fits (the ladder's there, but for widec's widths): one chain warp an SM
// fed by 6 loader warps through a shared-memory ring, 8 gradient warps of 8 features, 4 slices
// ahead, the re-read evict-first (2.06 / 1.98 TB/s at d = 2,048 / 4,096 on an H200 where deep read
// 1.54 / 1.53; 2026-12-01)
DEEPX_KERNEL(deepxb_o, 8, 8, 4, true)
extern "C" __global__ void __launch_bounds__(256) resid_o(SMALL_ARGS, float* __restrict__ rbuf) {
  resid_body<true>(SMALL_PASS, rbuf);
}
extern "C" __global__ void __launch_bounds__(256) grad_o(SMALL_ARGS, float* __restrict__ rbuf) {
  grad_body<true>(x, n, d, start, len, out, tiles, rbuf);
}
// the wide plan's batches that do not start on a slice boundary: the two passes over its layout
extern "C" __global__ void __launch_bounds__(256) resid8_o(SMALL_ARGS, float* __restrict__ rbuf) {
  resid_body<true, true>(SMALL_PASS, rbuf);
}
extern "C" __global__ void __launch_bounds__(256) grad8_o(SMALL_ARGS, float* __restrict__ rbuf) {
  grad_body<true, true>(x, n, d, start, len, out, tiles, rbuf);
}

// ---------------------------------------------------------------------------------------------
// The tile tree: in[c * count + t] for t < count; block (g, c) reduces the aligned group
// [1024 g, min(1024 g + 1024, count)) level by level (a[i] = a[2i] + a[2i+1], an odd last
// element carried unchanged) and writes out[c * groups + g]. Repeated until one value is left.
// 512 threads per block.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(512) tree_pass(const double* __restrict__ in, double* __restrict__ out,
                                                          int count, int groups) {
  __shared__ double a[1024];
  const int g = blockIdx.x;
  const int c = blockIdx.y;
  const int lo = g * 1024;
  int m = min(1024, count - lo);
  const double* src = in + (i64)c * count + lo;
  for (int i = threadIdx.x; i < m; i += blockDim.x) a[i] = src[i];
  __syncthreads();
  while (m > 1) {
    const int half = m >> 1;
    double v = 0.0;
    if ((int)threadIdx.x < half) v = __dadd_rn(a[2 * threadIdx.x], a[2 * threadIdx.x + 1]);
    const double carry = a[m - 1];
    __syncthreads();
    if ((int)threadIdx.x < half) a[threadIdx.x] = v;
    if ((m & 1) && threadIdx.x == 0) a[half] = carry;
    __syncthreads();
    m = half + (m & 1);
  }
  if (threadIdx.x == 0) out[(i64)c * groups + g] = a[0];
}
