#pragma once

// parreg local sums: the kernel bodies of large (a block a tile, x staged in shared memory).
// local_sums.cuh includes every family in order; common.cuh holds the layout and the build flags.

#include "small.cuh"

// ---------------------------------------------------------------------------------------------
// Large d (d <= 32 K <= 256): one block of 1024 threads (32 warps) per tile at a time. Thread
// (warp v, lane l) owns the accumulators of lane l for features j = v + 32 k, k < K. Each step
// handles P slices of 32 samples (slice s = samples 32 s + l): every thread loads its own
// features of the P slices into registers one step ahead (prefetch), stores them into a
// double-buffered shared-memory stage; warps 0..P-1 each run the binary32 residual chain of one
// slice (features in index order) into rs; then every thread adds r * x of its features in
// slice order, and warp P (mod 32) adds the loss and bias terms of the P slices in order.
// Dynamic shared memory: ws[d] floats, rs[P][32] floats, then xs[2][P][d][32] floats.
// ---------------------------------------------------------------------------------------------
// Features a resident slice holds in the quad layout read by the pipe fallbacks (QL, see
// pipe_body): 1: d rounded up to 4 (the quad plan); 2: 32 K (the spec plan at 64, 128, 192 and 256
// features); QL > 2: QL itself (the spec plan at its other widths, 48, 104 and 208).
template <int K, int QL>
__device__ __forceinline__ int quad_width(int d) {
  return QL == 1 ? (d + 3) & ~3 : QL == 2 ? 32 * K : QL;
}

template <int K, int P, int QL = 0>
__device__ __forceinline__ void large_load(const float* __restrict__ xs, const float* __restrict__ ys, i64 start,
                                           int d, int len, int g, int nq, float (&xr)[P][K], float& yr) {
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int t = blockIdx.x + (g / nq) * gridDim.x;
  const int q = g % nq;
  const int base = t * TILE;
  const int cnt = min(TILE, len - base);
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const int k0 = (q * P + p) * LANES + lane;
    const bool ok = k0 < cnt;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = v + 32 * k;
      xr[p][k] = (ok && j < d) ? xs[QL ? xq(j, start + base + k0, quad_width<K, QL>(d)) : xat(j, start + base + k0, d)] : 0.0f;
    }
  }
  if (v < P) {
    const int k0 = (q * P + v) * LANES + lane;
    yr = k0 < cnt ? ys[base + k0] : 0.0f;
  }
}

template <int K, int P, bool ORDERED>
__device__ __forceinline__ void large_body(const float* __restrict__ x, const float* __restrict__ y, i64 n,
                                           int d, i64 start, int len, const float* __restrict__ params,
                                           int bias, double* __restrict__ out, int tiles) {
  extern __shared__ float sm[];
  float* ws = sm;                        // d
  float* rs = sm + d;                    // P * 32
  float* stage = rs + P * LANES;         // 2 * P * d * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = SLICES / P;
  const float* xs = x;
  const float* ys = y + start;
  for (int j = threadIdx.x; j < d; j += blockDim.x) ws[j] = params[j];
  const float b = bias ? params[d] : 0.0f;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int total = myTiles * nq;
  const int lw = P & 31;  // the warp that sums loss and bias terms

  double acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0.0;
  double accb = 0.0, accl = 0.0;
  float xr[P][K];
  float yr = 0.0f;
  if (total > 0) large_load<K, P>(xs, ys, start, d, len, 0, nq, xr, yr);

  for (int g = 0; g < total; ++g) {
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    float* st = stage + (g & 1) * (P * d * LANES);
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = v + 32 * k;
        if (j < d) st[(p * d + j) * LANES + lane] = xr[p][k];
      }
    const float ycur = yr;
    __syncthreads();  // A: stage g and ws visible; everyone is past step g-1
    if (g + 1 < total) large_load<K, P>(xs, ys, start, d, len, g + 1, nq, xr, yr);
    if (v < P) {
      const float* col = st + (v * d) * LANES + lane;
      float r = 0.0f;
      for (int j = 0; j < d; ++j) r = __fadd_rn(r, __fmul_rn(ws[j], col[j * LANES]));
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, ycur);
      rs[v * LANES + lane] = r;
    }
    __syncthreads();  // B: residuals of the P slices visible
    slices_accumulate<K, P>(acc, accb, accl, st, rs, d, q, cnt, v, lane, lw);
    if (ORDERED && q == nq - 1) tile_write<K>(acc, accb, accl, out, d, tiles, t, v, lane, lw);
  }
  if (!ORDERED && total > 0) atomic_finish<K>(acc, accb, accl, out, d, v, lane, lw);
}

#define LARGE_KERNEL(NAME, K, P, ORD)                                                              \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(SMALL_ARGS) {                       \
    large_body<K, P, ORD>(SMALL_PASS);                                                             \
  }
