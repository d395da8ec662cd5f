#pragma once

// parreg local sums: the kernel bodies of wide2 (more chains a warp). local_sums.cuh includes every
// family in order; common.cuh holds the layout and the build flags.

#include "small.cuh"
#include "spec.cuh"
#include "wide.cuh"

// ---------------------------------------------------------------------------------------------
// Wide d, more chains a warp (the wide2 kernels; 256 < d <= 4 Q <= 1,024, the octet layout and
// the accumulating warps of wide_body, wide_accumulate): chain warp c owns TS slots (TS = 1, 2 or
// 4 sub-slices) and takes tasks c, c + C, ... of TS consecutive sub-slices (in the accumulating
// order), so that 8 TS of its lanes run chains at once, and the block holds C TS slots where
// shared memory allows (at W = 384, 16 slots of 12 KB: 128 chains, where wide_body runs 48).
// Per group i of 16 features, all 32 lanes store the TS sub-slices' quads 4 i .. 4 i + 3 (16-byte
// vectors from a ring of D groups a sub-slice in registers, loaded D groups ahead), then lane
// (h = lane / 8 mod TS, l = lane % 8) adds the terms of sample l of sub-slice h from the slot in
// feature order (lanes past 8 TS repeat lanes below, so that the chain is not a branch), then
// loads group i + D. After the last group, r (+ b, - y) of each sample goes into the task's
// residuals and the warp arrives at FULL[c]; before a task's first store it waits at EMPTY[c].
// Same terms in the same order as wide_body and the reference: the same bits.
// Dynamic shared memory: C TS slots of 8 Q vectors, the weights (Q vectors), the group sums (2 x 4 Q
// and 4 doubles), C TS * 8 residuals.
// ---------------------------------------------------------------------------------------------
template <int Q, int C, int A, int D, int TS>
__device__ __forceinline__ void wide2_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles) {
  static_assert(2 * C < 16, "barriers 1 .. 2 C");
  static_assert(TS == 1 || TS == 2 || TS == 4, "1, 2 or 4 sub-slices a task");
  static_assert(Q % (4 * A) == 0 && (Q / 4) % D == 0 && D <= Q / 4, "whole quads per thread and ring");
  constexpr int NB = 32 * (A + 1);
  constexpr int S = C * TS;
  constexpr int G4 = Q / 4;  // groups of four quads a sub-slice
  extern __shared__ float4 sm4[];
  float4* slots = sm4;                                // S slots of 8 Q vectors
  float4* ws4 = slots + S * 8 * Q;                    // w32 in quads, zeros past d
  double* gs = reinterpret_cast<double*>(ws4 + Q);    // 2 x 4 Q: G0 (+ G1), G2 of each feature
  double* gbl = gs + 8 * Q;                           // the same for the bias and the loss sums
  float* rs = reinterpret_cast<float*>(gbl + 4);      // S * 8 residuals
  float* wsf = reinterpret_cast<float*>(ws4);
  for (int j = threadIdx.x; j < 4 * Q; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int G = gridDim.x;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / G + 1 : 0;
  if (myTiles == 0) return;
  const int lastPer = (min(TILE, len - (blockIdx.x + (myTiles - 1) * G) * TILE) + LANES - 1) / LANES;
  const int total = (myTiles - 1) * 4 * SLICES + 4 * lastPer;  // sub-slices of this block
  const int tasks = (total + TS - 1) / TS;

  if (w < C) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float* ys = y + start;
    int m = w;
    if (m >= tasks) return;
    const int h = (lane >> 3) % TS;  // the sub-slice of the task whose chain this lane runs
    const int l = lane & 7;
    // sub-slice k of the block (clamped to the last one: a task past the end re-reads it into
    // its own slot, which the accumulating warps never read)
    const auto src_of = [&](int k) {
      const SubSlice a = sub_slice(min(k, total - 1), myTiles, lastPer, len);
      return x4 + (((start + (i64)a.t * TILE) >> 5) + a.s) * (32 * Q) + a.g * (8 * Q) + lane;
    };
    const auto y_of = [&](int k) {
      const SubSlice a = sub_slice(min(k, total - 1), myTiles, lastPer, len);
      const int ks = a.s * LANES + a.g * GROUP_LANES + l;  // tile-relative sample
      const bool ok = k < total && ks < a.cnt;
      const float v = ys[ok ? a.t * TILE + ks : 0];
      return ok ? v : 0.0f;
    };
    const float4* src[TS];
#pragma unroll
    for (int u = 0; u < TS; ++u) src[u] = src_of(m * TS + u);
    float yv = y_of(m * TS + h);
    float4 buf[D][TS];
#pragma unroll
    for (int e = 0; e < D; ++e)
#pragma unroll
      for (int u = 0; u < TS; ++u) buf[e][u] = src[u][32 * e];
    float4* const mine = slots + w * TS * 8 * Q + lane;             // slot u: mine[u * 8 Q + 32 i]
    const float4* const chain = slots + (w * TS + h) * 8 * Q + l;   // quad q of my sample: chain[8 q]
    for (; m < tasks; m += C) {
      const int mn = m + C;
      const bool more = mn < tasks;
      const float4* srcn[TS];
#pragma unroll
      for (int u = 0; u < TS; ++u) srcn[u] = more ? src_of(mn * TS + u) : src[u];
      const float yn = more ? y_of(mn * TS + h) : 0.0f;
      if (m >= C) named_bar_sync(1 + C + w, NB);  // the accumulators are done with task m - C
      float r = 0.0f;
#pragma unroll
      for (int i = 0; i < G4; ++i) {
        const int e = i % D;
#pragma unroll
        for (int u = 0; u < TS; ++u) mine[u * 8 * Q + 32 * i] = buf[e][u];
        __syncwarp();
#pragma unroll
        for (int u = 0; u < 4; ++u) r = quad_terms_w(r, ws4[4 * i + u], chain[8 * (4 * i + u)]);
#pragma unroll
        for (int u = 0; u < TS; ++u) buf[e][u] = i + D < G4 ? src[u][32 * (i + D)] : srcn[u][32 * (i + D - G4)];
      }
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, yv);
      if ((lane >> 3) < TS) rs[(w * TS + h) * GROUP_LANES + l] = r;
      __syncwarp();
      named_bar_arrive(1 + w, NB);  // the task's slots hold its sub-slices and residuals
#pragma unroll
      for (int u = 0; u < TS; ++u) src[u] = srcn[u];
      yv = yn;
    }
    return;
  }
  wide_accumulate<Q, C, A, TS>(slots, rs, gs, gbl, d, len, out, tiles, w - C, myTiles, lastPer, total);
}

// Parameters: those of the wide kernels. C chain warps of TS sub-slices each, 8 accumulating warps.
#define WIDE2_KERNEL(NAME, Q, C, D, TS)                                                            \
  extern "C" __global__ void __launch_bounds__(32 * (C + 8), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    wide2_body<Q, C, 8, D, TS>(x, y, d, start, len, params, bias, out, tiles);                     \
  }
