#pragma once

// parreg local sums: the kernel bodies of deepw (a tight window between the read and the re-read)
// and the fused gradient tasks. local_sums.cuh includes every family in order; common.cuh holds the
// layout and the build flags.

#include "small.cuh"
#include "spec.cuh"
#include "deepf.cuh"

// ---------------------------------------------------------------------------------------------
// Deep d, a tight window between the read and the re-read (the deepw plan, d > 1,024): deepf's
// fused persistent kernel, but each chain warp runs deep_resid's chains (a whole 32-sample slice a
// ticket, lane l its sample's chain, one coalesced 128-byte row a feature straight into registers,
// U features ahead, the weights as 16-byte shared-memory vectors) on all 32 lanes, so that a
// chain runs near the binary32 addition's latency. What lies between a feature's first read and
// its re-read is the bandwidth times (the chain's time + the gradient's lag): with few chain warps
// an SM (C = 1 or 2), each fed by an L2 prefetch PF features ahead of its loads, that is
// ~9 / 18 MB at d = 2,048 / 4,096 on an H200 (4.3 TB/s, 4 cycles a feature at 1.98 GHz), well
// inside its L2. Gradient warps as in deepf (tile t, F features; wait until all of tile t's
// slices are done), the re-read with an evict-first load (CS: ld.global.cs) so that the lines
// still to be re-read stay. Same operations in the same order as deep: the same bits.
// Parameters and counters: deepf's (tick[0] the slice ticket, tick[1] the gradient ticket,
// tick[2 + t] the done slices of tile t); dynamic shared memory: the weights, 4 ceil(d / 4)
// floats (zeros past d).
// ---------------------------------------------------------------------------------------------
#ifndef PARREG_HOST_EMU  // scripts/check/kernel-emu/shim.h has its own
__device__ __forceinline__ void prefetch_l2(const float* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
#endif

template <bool CS>
__device__ __forceinline__ float reread(const float* p) {
  return CS ? __ldcs(p) : *p;
}

// The gradient warps of a fused kernel: tasks (tile t, F features; the last one of each tile the
// bias and loss sums) by ticket tick[1], each once tile t's done count tick[2 + t] reaches
// PER_SLICE a slice of it; deep_grad's operations in its order, US slices loaded ahead, r read
// through L2.
template <int F, int US, bool CS>
__device__ __forceinline__ void fused_grad_tasks(const float* __restrict__ x, int d, i64 start, int len,
                                                 double* __restrict__ out, int tiles, const float* __restrict__ rbuf,
                                                 unsigned* tick, unsigned perSlice, int lane) {
  const int groups = (d + F - 1) / F + 1;  // the last one: bias and loss
  for (;;) {
    const int task = warp_ticket(tick + 1, lane);
    if (task >= tiles * groups) return;
    const int t = task / groups;
    const int g = task - t * groups;
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
    const unsigned need = perSlice * ((cnt + LANES - 1) / LANES);
    if (lane == 0) {
      while (*reinterpret_cast<volatile unsigned*>(tick + 2 + t) < need) __nanosleep(200);
    }
    __syncwarp();
    __threadfence();
    if (g == groups - 1) {
      double accb = 0.0, accl = 0.0;
      for (int s = 0; s < SLICES; ++s) {
        const int k0 = s * LANES + lane;
        if (k0 < cnt) {
          const double rd = (double)__ldcg(rbuf + base + k0);
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
    for (int s0 = 0; s0 < SLICES; s0 += US) {
      float v[US][F], rr[US];
#pragma unroll
      for (int u = 0; u < US; ++u) {
        const int k0 = (s0 + u) * LANES + lane;
        const int kk = k0 < cnt ? k0 : 0;
        const float* xp = sample_row(x, start + base + kk, d);
        rr[u] = __ldcg(rbuf + base + kk);
#pragma unroll
        for (int f = 0; f < F; ++f) v[u][f] = reread<CS>(xp + 32 * min(j0 + f, d - 1));  // past d: d - 1 again
      }
#pragma unroll
      for (int u = 0; u < US; ++u) {
        if ((s0 + u) * LANES + lane < cnt) {
#pragma unroll
          for (int f = 0; f < F; ++f) acc[f] = __dadd_rn(acc[f], (double)__fmul_rn(rr[u], v[u][f]));
        }
      }
    }
#pragma unroll
    for (int f = 0; f < F; ++f) {
      const double sv = lane_tree(acc[f]);
      if (lane == 0 && j0 + f < d) out[(i64)(j0 + f) * tiles + t] = sv;
    }
  }
}

// The U terms of features j .. j + U - 1 (j a multiple of 4), in feature order, the weights as
// 16-byte vectors.
template <int U>
__device__ __forceinline__ float chain_terms4(float r, const float4* ws4, int j, const float (&v)[U]) {
#pragma unroll
  for (int u = 0; u < U; u += 4) {
    const float4 w = ws4[(j + u) >> 2];
    r = __fadd_rn(r, __fmul_rn(w.x, v[u]));
    r = __fadd_rn(r, __fmul_rn(w.y, v[u + 1]));
    r = __fadd_rn(r, __fmul_rn(w.z, v[u + 2]));
    r = __fadd_rn(r, __fmul_rn(w.w, v[u + 3]));
  }
  return r;
}

template <int C, int U, int PF, int F, int US, bool CS>
__device__ __forceinline__ void deepw_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles, float* __restrict__ rbuf) {
  static_assert(U % 4 == 0, "whole weight vectors");
  extern __shared__ float4 sm4[];
  const float4* ws4 = sm4;
  float* wsf = reinterpret_cast<float*>(sm4);
  unsigned* tick = reinterpret_cast<unsigned*>(rbuf + n);
  const int dq = (d + 3) >> 2;
  for (int j = threadIdx.x; j < 4 * dq; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= C) {
    fused_grad_tasks<F, US, CS>(x, d, start, len, out, tiles, rbuf, tick, 1u, lane);
    return;
  }
  const int slices = (len + LANES - 1) / LANES;
  const int dU = d - d % U;  // features of the whole groups
  for (;;) {
    const int s = warp_ticket(tick, lane);
    if (s >= slices) return;
    const int i = s * LANES + lane;
    const bool ok = i < len;
    const float* xp = sample_row(x, start + (ok ? i : 0), d);  // past the batch: sample 0 again
    if (PF > 0) {
#pragma unroll 4
      for (int j = 0; j < min(PF, d); ++j) prefetch_l2(xp + 32 * j);
    }
    float r = 0.0f;
    float cur[U], nxt[U];
#pragma unroll
    for (int u = 0; u < U; ++u) cur[u] = xp[32 * min(u, d - 1)];
    for (int j = 0; j < dU; j += U) {
      // the next group's loads before this group's terms, at a clamped offset (no branch); the
      // last group re-reads itself; the prefetch PF features ahead (clamped: re-prefetches d - 1)
      const int jn = min(j + U, dU - U);
      if (PF > 0) {
#pragma unroll
        for (int u = 0; u < U; ++u) prefetch_l2(xp + 32 * min(j + PF + u, d - 1));
      }
#pragma unroll
      for (int u = 0; u < U; ++u) nxt[u] = xp[32 * (jn + u)];
      r = chain_terms4<U>(r, ws4, j, cur);
#pragma unroll
      for (int u = 0; u < U; ++u) cur[u] = nxt[u];
    }
    for (int j = dU; j < d; ++j) r = __fadd_rn(r, __fmul_rn(wsf[j], xp[32 * j]));
    if (bias) r = __fadd_rn(r, b);
    if (ok) {
      rbuf[i] = __fsub_rn(r, y[start + i]);
      __threadfence();
    }
    __syncwarp();
    if (lane == 0) atomicAdd(tick + 2 + (s >> 5), 1u);  // slice s is in tile s / 32
  }
}

// Parameters: deepf's. C chain warps (U features ahead in registers, an L2 prefetch PF ahead), A
// gradient warps of F features and US slices ahead, CS: the re-read evict-first.
#define DEEPW_KERNEL(NAME, C, A, U, PF, F, US, CS)                                                 \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), 1) NAME(SMALL_ARGS, float* __restrict__ rbuf) { \
    deepw_body<C, U, PF, F, US, CS>(x, y, n, d, start, len, params, bias, out, tiles, rbuf);     \
  }
