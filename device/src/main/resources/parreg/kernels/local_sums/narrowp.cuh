#pragma once

// parreg local sums: the kernel bodies of narrowp (a warp a tile, the accumulators in registers,
// loads ahead). local_sums.cuh includes every family in order; common.cuh holds the layout and the
// build flags.

#include "small.cuh"
#include "spec.cuh"
#include "split.cuh"

// ---------------------------------------------------------------------------------------------
// Narrow d in registers, loads ahead (the narrowp plans; 16 < d <= DMAX <= 48: WParam holds 256
// weights and the lane trees past 16 go one by one, so nothing but the registers bounds DMAX): small_body
// (a warp per tile, a thread per lane, all DMAX accumulators of the lane in registers, x in the
// plain slice layout, any batch start) with two changes aimed at d = 17..20, where small-16 reads
// 3.95 TB/s at 16 but the split chain only 3.2-3.5 at 17: the weights by value (constant-bank
// operands of the unrolled chain, so no register holds one: narrow's), and, PF, the next group of
// U slices loaded before this group's chains (split's p), so that a warp has loads in flight while
// it computes instead of alternating. The loads are split_load's (samples past the batch read
// the tile's first sample and count 0.0). The same operations in the same order as small_body
// (the chain in feature order, + b, - y; r x in binary64 in slice order a lane), so the same bits;
// the tile's first 16 lane trees through lanes_transposed_sum (same pairs, same bits), the rest
// one by one. ORDERED only; a warp takes tiles gw, gw + nw, ... (CudaBackend's balanced grid).
// ---------------------------------------------------------------------------------------------
template <int DMAX, int U, bool PF>
__device__ __forceinline__ void narrowp_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                             i64 start, int len, const WParam& wp, int bias,
                                             double* __restrict__ out, int tiles) {
  static_assert(SLICES % U == 0 && DMAX > 16 && DMAX <= 48, "whole groups a tile; 16 < DMAX <= 48");
  constexpr int GT = SLICES / U;  // groups a tile
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  const int myTiles = gw < tiles ? (tiles - 1 - gw) / nw + 1 : 0;
  if (myTiles == 0) return;
  const int lastCnt = min(TILE, len - (gw + (myTiles - 1) * nw) * TILE);
  const int total = (myTiles - 1) * GT + (lastCnt + U * LANES - 1) / (U * LANES);  // groups of the warp
  const float b = bias ? wp.b : 0.0f;
  double acc[DMAX];
#pragma unroll
  for (int j = 0; j < DMAX; ++j) acc[j] = 0.0;
  double accb = 0.0, accl = 0.0;
  const float* ys = y + start;
  float xv[U][DMAX], yv[U];
  if (PF) split_load<DMAX, U>(x, ys, d, start, len, gw, 0, 0, d, true, lane, xv, yv);
  for (int g = 0; g < total; ++g) {
    const int t = gw + (g / GT) * nw;
    const int s0 = (g % GT) * U;
    const int cnt = min(TILE, len - t * TILE);
    float xn[U][DMAX], yn[U];
    if (PF) {  // the next group (past the last one: this one again)
      const int gn = g + 1 < total ? g + 1 : g;
      split_load<DMAX, U>(x, ys, d, start, len, gw + (gn / GT) * nw, (gn % GT) * U, 0, d, true, lane, xn, yn);
    } else {
      split_load<DMAX, U>(x, ys, d, start, len, t, s0, 0, d, true, lane, xv, yv);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if ((s0 + u) * LANES + lane < cnt) {
        float r = 0.0f;
#pragma unroll
        for (int j = 0; j < DMAX; ++j)
          if (j < d) r = __fadd_rn(r, __fmul_rn(wp.w[j], xv[u][j]));
        if (bias) r = __fadd_rn(r, b);
        r = __fsub_rn(r, yv[u]);
#pragma unroll
        for (int j = 0; j < DMAX; ++j)
          if (j < d) acc[j] = __dadd_rn(acc[j], (double)__fmul_rn(r, xv[u][j]));
        const double rd = (double)r;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    if (s0 + U == SLICES || g == total - 1) {  // end of tile t
      double lo16[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) lo16[j] = acc[j];
      const double sv = lanes_transposed_sum<16>(lo16, lane);
      const int i = (int)(__brev((unsigned)lane) >> 28);  // as spec_write at N = 16
      if (lane < 16) out[(i64)i * tiles + t] = sv;         // d > 16: features 0..15 all exist
#pragma unroll
      for (int j = 16; j < DMAX; ++j)
        if (j < d) {
          const double s = lane_tree(acc[j]);
          if (lane == 0) out[(i64)j * tiles + t] = s;
        }
#pragma unroll
      for (int j = 0; j < DMAX; ++j) acc[j] = 0.0;
      bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
    }
    if (PF) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        yv[u] = yn[u];
#pragma unroll
        for (int j = 0; j < DMAX; ++j) xv[u][j] = xn[u][j];
      }
    }
  }
}

// Parameters: the narrow kernels' (the weights by value); blocks of BLOCK threads, MB blocks an SM
// (the register cap). Name: narrowp_o_DMAX_uU[p]_bBLOCK (p: PF).
#define NARROWP_KERNEL(NAME, DMAX, U, PF, BLOCK, MB)                                               \
  extern "C" __global__ void __launch_bounds__(BLOCK, MB)                                         \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    narrowp_body<DMAX, U, PF>(x, y, d, start, len, wp, bias, out, tiles);                          \
  }
