#pragma once

// parreg local sums: the kernel bodies of flow and quad (large, streamed whole slices; the quad
// layout). local_sums.cuh includes every family in order; common.cuh holds the layout and the build
// flags.

#include "small.cuh"
#include "pipe.cuh"

// ---------------------------------------------------------------------------------------------
// Large d, streamed (d <= 32 K <= 256; batches that start on a slice boundary, start % 32 == 0;
// other batches use pipe_body): the thread mapping, the arithmetic and the overlap of pipe_body,
// with three changes that cut the instructions per value by about half:
//  - x is loaded as 16-byte vectors: the P slices of a step are P * 128 d contiguous bytes in
//    the slice layout, thread t loads vectors t, t + 1024, ... and stores them unchanged into the
//    stage (same layout as global memory), so no per-value index arithmetic and 16-byte shared
//    stores;
//  - the weights are a kernel parameter passed by value (constant bank), and the residual chain
//    is fully unrolled over compile-time feature indices: each term is one shared load, one
//    multiply with a constant operand and one addition, in feature order (same operations, same
//    order, separate roundings);
//  - no weight copy in shared memory.
// A is how many steps ahead x is loaded into registers (P = 2: A = 1, as pipe_body; P = 1:
// A = 2, the same registers). Iteration g = -1 of the loop is the prologue (stage step 0, run
// its chains), so the unrolled chain appears once.
// Dynamic shared memory: xs[3][P][d][32] floats, then rs[2][P][32] floats, then (32 K - d) 32
// floats of slack that the unguarded accumulation may read past the last stage buffer.
// ---------------------------------------------------------------------------------------------
template <int K>
__device__ __forceinline__ float flow_chain(const WParam& wp, const float* col, int d) {
  float r = 0.0f;
#pragma unroll
  for (int kb = 0; kb < K; ++kb) {
    if (32 * kb + 32 <= d) {
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const int j = 32 * kb + u;
        r = __fadd_rn(r, __fmul_rn(wp.w[j], col[j * LANES]));
      }
    } else if (32 * kb < d) {
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const int j = 32 * kb + u;
        if (j < d) r = __fadd_rn(r, __fmul_rn(wp.w[j], col[j * LANES]));
      }
    }
  }
  return r;
}

template <int K, int P>
__device__ __forceinline__ void flow_load(const float4* __restrict__ x4, const float* __restrict__ ys, i64 start,
                                          int d, int len, int g, int nq, float4 (&xr)[(P * K * 256 + 1023) / 1024],
                                          float& yr) {
  constexpr int M = (P * K * 256 + 1023) / 1024;
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int t = blockIdx.x + (g / nq) * gridDim.x;
  const int q = g % nq;
  const int base = t * TILE;
  const int cnt = min(TILE, len - base);
  const int f = base + q * P * LANES;  // first sample of the step, batch-relative
  const int rem = cnt - q * P * LANES;
  const int ns = rem <= 0 ? 0 : min(P, (rem + LANES - 1) / LANES);
  const int nvalid = ns * 8 * d;  // 16-byte vectors of the step that hold samples of the batch
  const float4* src = x4 + ((start + f) >> 5) * ((i64)d * 8);
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const int idx = threadIdx.x + 1024 * m;
    xr[m] = idx < nvalid ? src[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  if (v < P) {
    const int k0 = (q * P + v) * LANES + lane;
    yr = k0 < cnt ? ys[base + k0] : 0.0f;
  }
}

// ---------------------------------------------------------------------------------------------
// Large d, quad layout (64 < d <= 32 K <= 256, K = 4 or 8; batches that start on a slice
// boundary, start % 32 == 0; the others use pipe_body<..., QL = true>): flow_body with x resident
// in the quad layout (xq), staged verbatim, so that
//  - the residual chain of a sample (warp v < P, one sample a thread) reads four consecutive
//    features with one 16-byte shared load (64 loads a chain at d = 256 instead of 256; the
//    chains bound the step: ncu on an H200), then adds the four terms in feature
//    order (same operations, same order, separate roundings);
//  - thread (warp v, lane l) owns the accumulators of lane l for the features 4 (v + 32 c) + e
//    (c < K / 4, e < 4): one 16-byte shared load per four features; a warp's load is 512
//    contiguous bytes (no bank conflict).
// Padding features (d4 > d) are zeros in x and in the weights: their terms add +0.0 to a residual
// that is never -0.0 (it starts at +0.0, and a sum is -0.0 only if both terms are), so the
// chain's bits are those of the d-term chain.
// Dynamic shared memory: xs[3][P][d4 / 4][32][4] floats, then rs[2][P][32] floats, then
// (32 K - d4) 32 floats of slack that the unguarded accumulation may read past the last stage.
// ---------------------------------------------------------------------------------------------
// The residual chain's terms of quad q (features 4 q .. 4 q + 3 of one sample), in feature order.
__device__ __forceinline__ float quad_terms(float r, const WParam& wp, int q, float4 v) {
  r = __fadd_rn(r, __fmul_rn(wp.w[4 * q], v.x));
  r = __fadd_rn(r, __fmul_rn(wp.w[4 * q + 1], v.y));
  r = __fadd_rn(r, __fmul_rn(wp.w[4 * q + 2], v.z));
  return __fadd_rn(r, __fmul_rn(wp.w[4 * q + 3], v.w));
}

template <int K>
__device__ __forceinline__ float quad_chain(const WParam& wp, const float4* col4, int d4) {
  float r = 0.0f;
#pragma unroll
  for (int kb = 0; kb < K; ++kb) {
    if (32 * kb + 32 <= d4) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int q = 8 * kb + u;
        const float4 v4 = col4[q * LANES];
        r = quad_terms(r, wp, q, v4);
      }
    } else if (32 * kb < d4) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int q = 8 * kb + u;
        if (4 * q < d4) {
          const float4 v4 = col4[q * LANES];
          r = quad_terms(r, wp, q, v4);
        }
      }
    }
  }
  return r;
}

// End of a tile (ORDERED: out[c * tiles + t]) or of the kernel (atomic: out[c]) under the quad
// mapping (thread v owns quads v, v + STRIDE, ...): one lane tree per accumulator; the bias and
// loss sums from the loss warp.
template <int K, int STRIDE, bool ORDERED>
__device__ __forceinline__ void quad_write(double (&acc)[K], double& accb, double& accl, double* out, int d,
                                           int tiles, int t, int v, int lane, bool lossWarp) {
#pragma unroll
  for (int c = 0; c < K / 4; ++c) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = 4 * (v + STRIDE * c) + e;
      if (j < d) {
        const double sv = lane_tree(acc[4 * c + e]);
        if (lane == 0) {
          if (ORDERED) out[(i64)j * tiles + t] = sv;
          else atomicAdd(out + j, sv);
        }
      }
      acc[4 * c + e] = 0.0;
    }
  }
  if (lossWarp) bias_loss_write<ORDERED>(accb, accl, out, d, tiles, t, lane);
}

// The quad plan's accumulation of one step (P staged slices st4: [P][d4 / 4][32][4]); full steps
// run without a test per value (quads past d4 read the next stage buffer or the slack and feed
// accumulators that are never written out).
template <int K, int P>
__device__ __forceinline__ void quad_accumulate(double (&acc)[K], double& accb, double& accl, const float4* st4,
                                                const float* rc, int d4, int q, int cnt, int v, int lane, int lw) {
  const bool full = (q * P + P) * LANES <= cnt;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    if (full || (q * P + p) * LANES + lane < cnt) {
      const float rl = rc[p * LANES + lane];
#pragma unroll
      for (int c = 0; c < K / 4; ++c) {
        const float4 xv = st4[p * 8 * d4 + (v + 32 * c) * LANES + lane];
        acc[4 * c] = __dadd_rn(acc[4 * c], (double)__fmul_rn(rl, xv.x));
        acc[4 * c + 1] = __dadd_rn(acc[4 * c + 1], (double)__fmul_rn(rl, xv.y));
        acc[4 * c + 2] = __dadd_rn(acc[4 * c + 2], (double)__fmul_rn(rl, xv.z));
        acc[4 * c + 3] = __dadd_rn(acc[4 * c + 3], (double)__fmul_rn(rl, xv.w));
      }
      if (v == lw) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
  }
}

// QUAD: the quad plan (x in the quad layout, quad_chain, quad_accumulate, quad_write).
template <int K, int P, int A, bool ORDERED, bool QUAD = false>
__device__ __forceinline__ void flow_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                          i64 start, int len, const WParam& wp, int bias, double* __restrict__ out,
                                          int tiles) {
  constexpr int M = (P * K * 256 + 1023) / 1024;
  const int dv = QUAD ? (d + 3) & ~3 : d;  // features a slice holds (d4 in the quad layout)
  extern __shared__ float4 sm4[];
  float4* stage4 = sm4;                                        // 3 * P * 8 dv vectors
  float* rs = reinterpret_cast<float*>(sm4 + 3 * P * 8 * dv);  // 2 * P * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = SLICES / P;
  const int sz4 = P * 8 * dv;     // vectors per stage buffer
  const int sz = P * d * LANES;   // floats per stage buffer
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float* ys = y + start;
  const float b = wp.b;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int total = myTiles * nq;
  const int lw = P & 31;
  if (total == 0) return;

  double acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0.0;
  double accb = 0.0, accl = 0.0;
  float4 xr[A][M];  // steps g+1 .. g+A in registers (loaded A steps ahead)
  float yr[A];
#pragma unroll
  for (int a = 0; a < A; ++a) yr[a] = 0.0f;

  // steps 0 .. A-1 in registers; iteration g = -1 is the prologue (stage step 0, run its chains)
#pragma unroll
  for (int a = 0; a < A; ++a)
    if (a < total) flow_load<K, P>(x4, ys, start, dv, len, a, nq, xr[a], yr[a]);
  for (int g = -1; g < total; ++g) {
    float ynext = 0.0f;
    float4* stn4 = stage4 + ((g + 1) % 3) * sz4;
    if (g + 1 < total) {
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const int idx = threadIdx.x + 1024 * m;
        if (idx < sz4) stn4[idx] = xr[0][m];
      }
      ynext = yr[0];
    }
    __syncthreads();  // rs of step g and stage of step g+1 complete; everyone is past step g-1
#pragma unroll
    for (int a = 0; a + 1 < A; ++a) {
#pragma unroll
      for (int m = 0; m < M; ++m) xr[a][m] = xr[a + 1][m];
      yr[a] = yr[a + 1];
    }
    if (g + 1 + A < total) flow_load<K, P>(x4, ys, start, dv, len, g + 1 + A, nq, xr[A - 1], yr[A - 1]);
    if (v < P && g + 1 < total) {
      float r = QUAD ? quad_chain<K>(wp, stn4 + v * 8 * dv + lane, dv)
                     : flow_chain<K>(wp, reinterpret_cast<const float*>(stn4) + (v * d) * LANES + lane, d);
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, ynext);
      rs[((g + 1) & 1) * P * LANES + v * LANES + lane] = r;
    }
    if (g < 0) continue;
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    const float* st = reinterpret_cast<const float*>(stage4) + (g % 3) * sz;
    const float* rc = rs + (g & 1) * P * LANES;
    if (QUAD) {
      quad_accumulate<K, P>(acc, accb, accl, stage4 + (g % 3) * sz4, rc, dv, q, cnt, v, lane, lw);
    } else if ((q * P + P) * LANES <= cnt) {
      // Every sample of the step is in the batch (all steps but a batch's last): no test per
      // value. Features j >= d (d not a multiple of 32) read the stage's next values or its
      // slack (flowSmem) and only feed accumulators that are never written out.
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float rl = rc[p * LANES + lane];
        const float* sp = st + (p * d + v) * LANES + lane;
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = __dadd_rn(acc[k], (double)__fmul_rn(rl, sp[32 * k * LANES]));
        if (v == lw) {
          const double rd = (double)rl;
          accb = __dadd_rn(accb, rd);
          accl = __dadd_rn(accl, __dmul_rn(rd, rd));
        }
      }
    } else {
      slices_accumulate<K, P>(acc, accb, accl, st, rc, d, q, cnt, v, lane, lw);
    }
    if (ORDERED && q == nq - 1) {
      if (QUAD) quad_write<K, 32, true>(acc, accb, accl, out, d, tiles, t, v, lane, v == lw);
      else tile_write<K>(acc, accb, accl, out, d, tiles, t, v, lane, lw);
    }
  }
  if (!ORDERED) {
    if (QUAD) quad_write<K, 32, false>(acc, accb, accl, out, d, tiles, 0, v, lane, v == lw);
    else atomic_finish<K>(acc, accb, accl, out, d, v, lane, lw);
  }
}

// Parameters: those of the other kernels, an unused pointer (the twopass buffer slot), then the
// weights by value.
#define FLOW_KERNEL(NAME, K, P, A, ORD)                                                            \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    flow_body<K, P, A, ORD>(x, y, n, d, start, len, wp, bias, out, tiles);                         \
  }


// Parameters: those of the flow kernels.
#define QUAD_KERNEL(NAME, K, ORD)                                                                  \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    flow_body<K, 2, 1, ORD, true>(x, y, n, d, start, len, wp, bias, out, tiles);                   \
  }
