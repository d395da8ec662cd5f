#pragma once

// parreg local sums: the kernel bodies of deep (two passes over the plain slice layout, d > 1,024).
// local_sums.cuh includes every family in order; common.cuh holds the layout and the build flags.

#include "small.cuh"
#include "twopass.cuh"

// ---------------------------------------------------------------------------------------------
// Deep d (the deep plan, d > 1,024): two passes over the plain slice layout, each reading x once
// at the read limit (the twopass kernels above run a tile's 32 slices one after the other in one
// warp, so at d = 4,096 a whole card had about a hundred warps in flight).
// deep_resid: one warp per 32-sample slice of the batch (samples 32 s + lane, batch-relative);
//   lane l runs its sample's binary32 chain (features in index order, weights from shared
//   memory), U features loaded ahead into a second register group while the current group's U
//   terms are added, and stores r (+ b, - y) to rbuf. The bias and loss sums are deep_grad's.
// deep_grad: one warp per (tile, group of F features), the groups of a tile on consecutive warps
//   (a block reads 8 F contiguous rows of each slice); lane l adds r * x of its samples in slice
//   order, exactly as grad_body; one extra group per tile sums r and r * r (the bias and loss
//   coordinates, bias_loss_write). Both kernels take any batch start (addresses per lane).
// ---------------------------------------------------------------------------------------------
// Feature 0 of sample gi in the slice layout: feature j is at [32 j].
__device__ __forceinline__ const float* sample_row(const float* x, i64 gi, int d) {
  return x + (gi >> 5) * ((i64)d * 32) + (gi & 31);
}

// The U terms of features j .. j + U - 1, in feature order.
template <int U>
__device__ __forceinline__ float chain_terms(float r, const float* ws, int j, const float (&v)[U]) {
#pragma unroll
  for (int u = 0; u < U; ++u) r = __fadd_rn(r, __fmul_rn(ws[j + u], v[u]));
  return r;
}

template <int U>
__device__ __forceinline__ void deep_resid_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                                i64 start, int len, const float* __restrict__ params, int bias,
                                                float* __restrict__ rbuf) {
  extern __shared__ float ws[];  // w32[0..d)
  for (int j = threadIdx.x; j < d; j += blockDim.x) ws[j] = params[j];
  __syncthreads();
  const float b = bias ? params[d] : 0.0f;
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  const int slices = (len + LANES - 1) / LANES;
  const int dU = d - d % U;  // features of the whole groups
  for (int s = gw; s < slices; s += nw) {
    const int i = s * LANES + lane;
    const bool ok = i < len;
    const float* xp = sample_row(x, start + (ok ? i : 0), d);  // past the batch: sample 0 again
    float r = 0.0f;
    if (dU > 0) {
      float cur[U], nxt[U];
#pragma unroll
      for (int u = 0; u < U; ++u) cur[u] = xp[32 * u];
      for (int j = 0; j < dU; j += U) {
        // the next group's loads before this group's terms, at a clamped offset (no branch: a
        // load under one is sunk next to its use); the last group re-reads itself
        const int jn = min(j + U, dU - U);
#pragma unroll
        for (int u = 0; u < U; ++u) nxt[u] = xp[32 * (jn + u)];
        r = chain_terms<U>(r, ws, j, cur);
#pragma unroll
        for (int u = 0; u < U; ++u) cur[u] = nxt[u];
      }
    }
    for (int j = dU; j < d; ++j) r = __fadd_rn(r, __fmul_rn(ws[j], xp[32 * j]));
    if (bias) r = __fadd_rn(r, b);
    if (ok) rbuf[i] = __fsub_rn(r, y[start + i]);
  }
}

template <int F>
__device__ __forceinline__ void deep_grad_body(const float* __restrict__ x, int d, i64 start, int len,
                                               double* __restrict__ out, int tiles,
                                               const float* __restrict__ rbuf) {
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  const int groups = (d + F - 1) / F + 1;  // the last one: bias and loss
  for (i64 task = gw; task < (i64)tiles * groups; task += nw) {
    const int t = (int)(task / groups);
    const int g = (int)(task - (i64)t * groups);
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
    if (g == groups - 1) {
      double accb = 0.0, accl = 0.0;
      for (int s = 0; s < SLICES; ++s) {
        const int k0 = s * LANES + lane;
        if (k0 < cnt) {
          const double rd = (double)rbuf[base + k0];
          accb = __dadd_rn(accb, rd);
          accl = __dadd_rn(accl, __dmul_rn(rd, rd));
        }
      }
      bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
      continue;
    }
    const int j0 = g * F;
    double acc[F];
#pragma unroll
    for (int f = 0; f < F; ++f) acc[f] = 0.0;
#pragma unroll 2
    for (int s = 0; s < SLICES; ++s) {
      const int k0 = s * LANES + lane;
      const bool ok = k0 < cnt;
      const float* xp = sample_row(x, start + base + (ok ? k0 : 0), d);
      const float r = rbuf[base + (ok ? k0 : 0)];
      float v[F];
#pragma unroll
      for (int f = 0; f < F; ++f) v[f] = xp[32 * min(j0 + f, d - 1)];  // past d: feature d - 1 again
      if (ok) {
#pragma unroll
        for (int f = 0; f < F; ++f) acc[f] = __dadd_rn(acc[f], (double)__fmul_rn(r, v[f]));
      }
    }
#pragma unroll
    for (int f = 0; f < F; ++f) {
      const double sv = lane_tree(acc[f]);
      if (lane == 0 && j0 + f < d) out[(i64)(j0 + f) * tiles + t] = sv;
    }
  }
}

// Parameters: those of the two passes (rbuf: the batch's residuals).
#define DEEP_KERNELS(RESID, GRAD, U, F)                                                            \
  extern "C" __global__ void __launch_bounds__(256) RESID(SMALL_ARGS, float* __restrict__ rbuf) { \
    deep_resid_body<U>(x, y, d, start, len, params, bias, rbuf);                                   \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) GRAD(SMALL_ARGS, float* __restrict__ rbuf) {  \
    deep_grad_body<F>(x, d, start, len, out, tiles, rbuf);                                         \
  }
