#pragma once

// parreg local sums: the kernel bodies of spec (warp-specialised: chain warps and accumulating
// warps over slots of the quad layout). local_sums.cuh includes every family in order; common.cuh
// holds the layout and the build flags.

#include "small.cuh"
#include "pipe.cuh"
#include "flow.cuh"

// ---------------------------------------------------------------------------------------------
// Helpers of the warp-specialised kernels (spec_body below).
// ---------------------------------------------------------------------------------------------
// The lane trees of N accumulators at once (N a power of two, 2 <= N <= 32): at the level that
// pairs lanes l and l ^ m, each lane keeps half of its partial sums and sends the other half to
// its partner, so the five levels take N - 1 + 5 - log2 N shuffles instead of 5 N, and their
// additions are independent. Every pair is the one lane_tree adds at that level (the
// accumulator's own partial sum first), so the sums have lane_tree's bits. Afterwards lane l
// holds the sum of accumulator i = bit-reversal of the low log2 N bits of l (lanes l and l ^ 16,
// ... hold the same one when N < 32); spec_write turns that into the feature.
template <int N, int n = N, int m = 1>
__device__ __forceinline__ double lanes_transposed_sum(double (&v)[N], int lane) {
  if constexpr (n > 1) {  // recursion, not a loop: the levels must unroll or v leaves the registers
    const bool up = (lane & m) != 0;
#pragma unroll
    for (int i = 0; i < n / 2; ++i) {
      const double send = up ? v[i] : v[i + n / 2];
      const double keep = up ? v[i + n / 2] : v[i];
      v[i] = __dadd_rn(keep, __shfl_xor_sync(0xffffffffu, send, m));
    }
    return lanes_transposed_sum<N, n / 2, m * 2>(v, lane);
  } else {
    double s = v[0];
#pragma unroll
    for (int k = m; k < 32; k *= 2) s = __dadd_rn(s, __shfl_xor_sync(0xffffffffu, s, k));
    return s;
  }
}

// End of a tile (ORDERED: out[c * tiles + t]) or of the kernel (atomic: out[c]) in spec_body:
// accumulating warp a holds, for its lane, features 4 (a + A c) + e in acc[4 c + e]; the
// accumulators restart at +0.0. The bias and loss sums come from warp 0 (lossWarp).
template <int N, int A, bool ORDERED>
__device__ __forceinline__ void spec_write(double (&acc)[N], double& accb, double& accl, double* out, int d,
                                           int tiles, int t, int a, int lane, bool lossWarp) {
  static_assert((N & (N - 1)) == 0 && N >= 2 && N <= 32, "N a power of two, 2 .. 32");
  const double sv = lanes_transposed_sum<N>(acc, lane);
  const int i = (int)(__brev((unsigned)lane) >> (32 - __ffs(N) + 1));  // bit-reversed low log2 N bits
  const int j = 4 * (a + A * (i >> 2)) + (i & 3);
  if (j < d && lane < N) {
    if (ORDERED) out[(i64)j * tiles + t] = sv;
    else atomicAdd(out + j, sv);
  }
#pragma unroll
  for (int k = 0; k < N; ++k) acc[k] = 0.0;
  if (lossWarp) bias_loss_write<ORDERED>(accb, accl, out, d, tiles, t, lane);
}

#ifndef PARREG_HOST_EMU  // scripts/check/kernel-emu/shim.h has its own
__device__ __forceinline__ void named_bar_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}
#endif

// L2 prefetch (comparison shapes): the bytes [0, bytes) of base, one PS-byte line per
// prefetch, lines first, first + step, ... No register receives anything, so a warp can ask for
// a whole slice or group of slices ahead of its loads; the loads then hit the L2. It changes no
// value (no arithmetic), only when bytes arrive. scripts/check/kernel-emu/shim.h checks the addresses.
#ifndef PARREG_HOST_EMU
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.L2 [%0];" ::"l"(p)); }
#endif
template <int PS>
__device__ __forceinline__ void prefetch_range(const char* base, i64 bytes, int first, int step) {
  for (i64 o = (i64)first * PS; o < bytes; o += (i64)step * PS) prefetch_l2(base + o);
}

// ---------------------------------------------------------------------------------------------
// Large d, warp-specialised (d <= 4 Q; x resident in the quad layout padded to 4 Q features a
// slice, xq with d4 = 4 Q; batches that start on a slice boundary, the others use
// pipe_body<..., QL = 2>). The block-wide barrier of flow_body ties every step to its slowest
// residual chain (ncu on an H200: 42 % of the warps' time at the barrier); here no barrier spans
// the block.
// The block is C chain warps and A accumulating warps around a ring of S slots in shared memory,
// one 32-sample slice each ([Q][32][4] floats, as resident) plus its 32 residuals, and two named
// barriers per slot:
//  - chain warp c takes the block's slices c, c + C, ... (S % C == 0, so a slot always has the
//    same chain warp): its lanes load their sample's quads from global memory into a ring of D
//    registers (one warp load is 512 contiguous bytes), the next slice's first D quads while the
//    current one ends; each quad is stored into the slot and its four terms added to the
//    sample's residual in feature order, from registers. Then r (+ b, - y) goes into the slot
//    and the warp arrives at FULL[slot];
//  - the accumulating warps take every slice in order: wait at FULL[slot], add r * x of their
//    quads (warp a owns quads a, a + A, ...; one 16-byte shared load per four features) and of
//    the bias and loss (warp 0), arrive at EMPTY[slot], and write the lane trees at the end of
//    each tile. A chain warp waits at EMPTY[slot] before it overwrites a slot.
// Same operations in the same order as flow_body, so the same bits; only the timing differs.
// Dynamic shared memory: S slots of 32 Q vectors, then S * 32 residuals.
// ---------------------------------------------------------------------------------------------
// PD > 0 (comparison shapes): a chain warp also prefetches into the L2 the slice
// it takes PD turns later (k + PD C), PS-byte lines, at the start of each turn.
template <int Q, int C, int A, int D, int S, bool ORDERED, int PD = 0, int PS = 128>
__device__ __forceinline__ void spec_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                          int len, const WParam& wp, int bias, double* __restrict__ out,
                                          int tiles) {
  static_assert(S % C == 0 && 2 * S < 16, "a slot has one chain warp; barriers 1 .. 2 S");
  static_assert(Q % D == 0 && Q % A == 0 && 4 * Q <= 256, "whole register groups and quads per warp");
  constexpr int NB = 32 * (A + 1);  // threads at each slot barrier
  extern __shared__ float4 sm4[];
  float4* slots = sm4;                                     // S slots of Q * 32 vectors
  float* rs = reinterpret_cast<float*>(sm4 + S * Q * 32);  // S * 32 residuals
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int G = gridDim.x;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / G + 1 : 0;
  if (myTiles == 0) return;
  const int lastCnt = min(TILE, len - (blockIdx.x + (myTiles - 1) * G) * TILE);
  const int total = (myTiles - 1) * SLICES + (lastCnt + LANES - 1) / LANES;  // slices of this block

  if (w < C) {
    // Chain warp: slices w, w + C, ... Every load is at a fixed offset from its slice (a load
    // under a branch or at a computed offset lets the compiler sink it next to its use, which
    // serialises the ring): the layout holds Q quads a slice, padding features are zeros (and so
    // are their weights: +0.0 terms), and after the last slice the ring re-reads the current one.
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float* ys = y + start;
    int k = w;
    if (k >= total) return;
    float4 buf[D];
    int t = blockIdx.x + (k >> 5) * G;
    int k0 = (k & 31) * LANES + lane;  // tile-relative sample of this lane
    const float4* src = x4 + ((start + (i64)t * TILE + (k & 31) * LANES) >> 5) * (Q * 32) + lane;
    bool yok = k0 < min(TILE, len - t * TILE);
    float yv = ys[yok ? t * TILE + k0 : 0];
    yv = yok ? yv : 0.0f;
#pragma unroll
    for (int e = 0; e < D; ++e) buf[e] = src[e * LANES];
    for (; k < total; k += C) {
      const int kn = k + C;
      const bool more = kn < total;
      // the next slice's address and y without a branch (see above); past the last slice, the
      // current one again and y = 0.0
      t = blockIdx.x + ((more ? kn : k) >> 5) * G;
      k0 = ((more ? kn : k) & 31) * LANES + lane;
      const float4* srcn = more ? x4 + ((start + (i64)t * TILE + (kn & 31) * LANES) >> 5) * (Q * 32) + lane : src;
      yok = more && k0 < min(TILE, len - t * TILE);
      float yn = ys[yok ? t * TILE + k0 : 0];
      yn = yok ? yn : 0.0f;
      if constexpr (PD > 0) {
        const int kp = k + PD * C;
        if (kp < total) {
          const int tp = blockIdx.x + (kp >> 5) * G;
          const float4* sp = x4 + ((start + (i64)tp * TILE + (kp & 31) * LANES) >> 5) * (Q * 32);
          prefetch_range<PS>(reinterpret_cast<const char*>(sp), 512 * Q, lane, LANES);
        }
      }
      const int s = k % S;
      if (k >= S) named_bar_sync(1 + S + s, NB);  // the accumulators are done with slice k - S
      float4* slot = slots + s * Q * 32 + lane;
      float r = 0.0f;
#pragma unroll
      for (int q = 0; q < Q; ++q) {
        const int e = q % D;
        const float4 v = buf[e];
        slot[q * LANES] = v;
        r = quad_terms(r, wp, q, v);
        buf[e] = q + D < Q ? src[(q + D) * LANES] : srcn[(q + D - Q) * LANES];
      }
      if (bias) r = __fadd_rn(r, wp.b);
      r = __fsub_rn(r, yv);
      rs[s * LANES + lane] = r;
      named_bar_arrive(1 + s, NB);  // slot s holds slice k and its residuals
      src = srcn;
      yv = yn;
    }
    return;
  }

  // Accumulating warp a: every slice in order, quads a, a + A, ... of the slot (padding quads
  // are zeros: their accumulators stay +0.0 and are never written out).
  const int a = w - C;
  constexpr int QA = Q / A;
  double acc[4 * QA];
#pragma unroll
  for (int i = 0; i < 4 * QA; ++i) acc[i] = 0.0;
  double accb = 0.0, accl = 0.0;
  for (int k = 0; k < total; ++k) {
    const int s = k % S;
    const int q = k & 31;
    const int t = blockIdx.x + (k >> 5) * G;
    const int cnt = min(TILE, len - t * TILE);
    named_bar_sync(1 + s, NB);
    if ((q + 1) * LANES <= cnt || q * LANES + lane < cnt) {
      const float rl = rs[s * LANES + lane];
      const float4* sl = slots + s * Q * 32 + lane;
#pragma unroll
      for (int c = 0; c < QA; ++c) {
        const float4 xv = sl[(a + A * c) * LANES];
        acc[4 * c] = __dadd_rn(acc[4 * c], (double)__fmul_rn(rl, xv.x));
        acc[4 * c + 1] = __dadd_rn(acc[4 * c + 1], (double)__fmul_rn(rl, xv.y));
        acc[4 * c + 2] = __dadd_rn(acc[4 * c + 2], (double)__fmul_rn(rl, xv.z));
        acc[4 * c + 3] = __dadd_rn(acc[4 * c + 3], (double)__fmul_rn(rl, xv.w));
      }
      if (a == 0) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    if (k + S < total) named_bar_arrive(1 + S + s, NB);  // slot s free for slice k + S
    if (ORDERED && (q == SLICES - 1 || k == total - 1))
      spec_write<4 * QA, A, true>(acc, accb, accl, out, d, tiles, t, a, lane, a == 0);
  }
  if (!ORDERED) spec_write<4 * QA, A, false>(acc, accb, accl, out, d, tiles, 0, a, lane, a == 0);
}

// Parameters: those of the flow kernels. One shape per slice width 4 Q (64, 128, 192, 256
// features): 6 chain warps with 8 quads ahead, 8 accumulating warps (12 at Q = 48, so that each
// owns a power of two of accumulators), 6 slots.
#define SPEC_KERNEL(NAME, Q, C, A, D, S, ORD)                                                      \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), 1)                                  \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    spec_body<Q, C, A, D, S, ORD>(x, y, d, start, len, wp, bias, out, tiles);                      \
  }
// the same at MB blocks an SM (the register cap 64 K / (32 (C + A) MB)): twice the chain warps
// and slots an SM where two blocks fit (spec_o_48_m6, spec_o_64_m4; comparison shapes "specW_mD")
#define SPEC_KERNEL_MB(NAME, Q, C, A, D, S, MB)                                                    \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), MB)                                 \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    spec_body<Q, C, A, D, S, true>(x, y, d, start, len, wp, bias, out, tiles);                     \
  }
// the same with the L2 prefetch of the slice PD turns ahead (PS-byte lines)
#define SPEC_KERNEL_PF(NAME, Q, C, A, D, S, PD, PS)                                                \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), 1)                                  \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    spec_body<Q, C, A, D, S, true, PD, PS>(x, y, d, start, len, wp, bias, out, tiles);             \
  }
