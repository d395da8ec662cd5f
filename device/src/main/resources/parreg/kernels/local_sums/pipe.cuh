#pragma once

// parreg local sums: the kernel bodies of pipe (large, pipelined) and the pipe fallbacks of flow,
// quad and spec. local_sums.cuh includes every family in order; common.cuh holds the layout and the
// build flags.

#include "small.cuh"
#include "large.cuh"

// ---------------------------------------------------------------------------------------------
// Large d, pipelined (d <= 32 K <= 256): the same thread mapping and the same arithmetic as
// large_body, but the residual chains of step g+1 run while the block accumulates step g, so
// the block waits on one barrier per step instead of two and the chain's latency is hidden.
// The stage is triple-buffered, rs double-buffered; the chain is unrolled by 8 (eight products,
// then eight additions in feature order: the same operations in the same order).
// Dynamic shared memory: ws[d], rs[2][P][32], xs[3][P][d][32] floats.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ float residual_chain(const float* __restrict__ ws, const float* col, int d) {
  float r = 0.0f;
  int j = 0;
  for (; j + 8 <= d; j += 8) {
    float pr[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) pr[u] = __fmul_rn(ws[j + u], col[(j + u) * LANES]);
#pragma unroll
    for (int u = 0; u < 8; ++u) r = __fadd_rn(r, pr[u]);
  }
  for (; j < d; ++j) r = __fadd_rn(r, __fmul_rn(ws[j], col[j * LANES]));
  return r;
}

// QL: x resident in the quad layout, 1: of d4 = d rounded up to 4 features (the quad plan's
// fallback), 2: of 32 K features (the spec plan's), > 2: of QL features (the spec plan's other
// widths), for batches that do not start on a slice boundary); the stage keeps the slice layout
// either way.
template <int K, int P, bool ORDERED, int QL = 0>
__device__ __forceinline__ void pipe_body(const float* __restrict__ x, const float* __restrict__ y, i64 n,
                                          int d, i64 start, int len, const float* __restrict__ params,
                                          int bias, double* __restrict__ out, int tiles) {
  extern __shared__ float sm[];
  float* ws = sm;                        // d
  float* rs = sm + d;                    // 2 * P * 32
  float* stage = rs + 2 * P * LANES;     // 3 * P * d * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = SLICES / P;
  const int sz = P * d * LANES;
  const float* xs = x;
  const float* ys = y + start;
  for (int j = threadIdx.x; j < d; j += blockDim.x) ws[j] = params[j];
  const float b = bias ? params[d] : 0.0f;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int total = myTiles * nq;
  const int lw = P & 31;
  if (total == 0) return;

  double acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0.0;
  double accb = 0.0, accl = 0.0;
  float xr[P][K];
  float yr = 0.0f;

  // prologue: step 0 staged, its chains run; step 1 in registers
  large_load<K, P, QL>(xs, ys, start, d, len, 0, nq, xr, yr);
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = v + 32 * k;
      if (j < d) stage[(p * d + j) * LANES + lane] = xr[p][k];
    }
  const float y0 = yr;
  __syncthreads();
  if (1 < total) large_load<K, P, QL>(xs, ys, start, d, len, 1, nq, xr, yr);
  if (v < P) {
    float r = residual_chain(ws, stage + (v * d) * LANES + lane, d);
    if (bias) r = __fadd_rn(r, b);
    r = __fsub_rn(r, y0);
    rs[v * LANES + lane] = r;
  }

  for (int g = 0; g < total; ++g) {
    float ynext = 0.0f;
    float* stn = stage + ((g + 1) % 3) * sz;
    if (g + 1 < total) {
#pragma unroll
      for (int p = 0; p < P; ++p)
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const int j = v + 32 * k;
          if (j < d) stn[(p * d + j) * LANES + lane] = xr[p][k];
        }
      ynext = yr;
    }
    __syncthreads();  // rs of step g and stage of step g+1 complete; everyone is past step g-1
    if (g + 2 < total) large_load<K, P, QL>(xs, ys, start, d, len, g + 2, nq, xr, yr);
    if (v < P && g + 1 < total) {
      float r = residual_chain(ws, stn + (v * d) * LANES + lane, d);
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, ynext);
      rs[((g + 1) & 1) * P * LANES + v * LANES + lane] = r;
    }
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    const float* st = stage + (g % 3) * sz;
    const float* rc = rs + (g & 1) * P * LANES;
    slices_accumulate<K, P>(acc, accb, accl, st, rc, d, q, cnt, v, lane, lw);
    if (ORDERED && q == nq - 1) tile_write<K>(acc, accb, accl, out, d, tiles, t, v, lane, lw);
  }
  if (!ORDERED) atomic_finish<K>(acc, accb, accl, out, d, v, lane, lw);
}

#define PIPE_KERNEL(NAME, K, P, ORD)                                                               \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(SMALL_ARGS) {                       \
    pipe_body<K, P, ORD>(SMALL_PASS);                                                              \
  }

#define PIPEQ_KERNEL(NAME, K, ORD, QL)                                                             \
  extern "C" __global__ void __launch_bounds__(1024, 1) NAME(SMALL_ARGS) {                       \
    pipe_body<K, 2, ORD, QL>(SMALL_PASS);                                                          \
  }
