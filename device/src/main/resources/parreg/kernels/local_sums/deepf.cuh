#pragma once

// parreg local sums: the kernel bodies of deepf (deep's two passes fused; comparison kernels; its
// gradient warps run a copy of deepw.cuh's fused_grad_tasks, kept because sharing the function
// changes deepf's PTX). local_sums.cuh includes every family in order; common.cuh holds the layout
// and the build flags.

#include "small.cuh"
#include "spec.cuh"
#include "wide.cuh"
#include "deep.cuh"

// ---------------------------------------------------------------------------------------------
// Deep d, x read once from HBM (the deepf plan, d > 1,024): deep's two passes fused into one
// persistent kernel, so that the gradient tasks re-read x from L2 a few microseconds after the
// chains read it from HBM (deep reads it twice from HBM). What stays between the two reads is the
// bandwidth times one chain's latency (d dependent binary32 additions: ~18 MB at d = 2,048 at
// 4 cycles an addition), so a chain must run near that latency: a chain warp takes one sub-slice
// (8 samples of a slice) at a time, its 32 lanes load 4 features x 8 samples a register (lane
// e * 8 + l: feature 4 c + e of sample l) D registers ahead (~4 D features), and lane l' gets
// sample l' % 8's features by shuffles (lanes past 8 repeat lanes below: no divergent branch).
// Work is handed out in order by tickets (global counters, reset by the host before each launch):
//  - the 4 chain warps of a block take slices in order, in step (a ticket a slice, warp g its
//    group g: samples 32 s + 8 g .. 32 s + 8 g + 7), so that the four 32-byte parts of each
//    128-byte row are requested together (one DRAM read of the row; taken apart, the rows were
//    read about twice: ncu on an H200), run the chains in feature order, write r (+ b, - y) to rbuf
//    and count the tile's done sub-slices (tick[2 + t]; fence, then atomicAdd);
//  - gradient warps take tasks (tile t, F features, and one bias/loss task a tile) in order, wait
//    until all of tile t's sub-slices are done, then run deep_grad's task (slice order per lane,
//    US slices loaded ahead, r read through L2).
// A gradient warp only waits for sub-slices that some running chain warp holds or will take, and
// chain warps never wait for gradient warps, so the kernel ends whatever number of blocks is
// resident. Same operations in the same order as deep: the same bits.
// Dynamic shared memory: the weights, 4 ceil(d / 4) floats (zeros past d), then 4 ints (the
// chain warps' slice tickets).
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ int warp_ticket(unsigned* counter, int lane) {
  unsigned v = 0;
  if (lane == 0) v = atomicAdd(counter, 1u);
  return (int)__shfl_sync(0xffffffffu, v, 0);
}

// The terms of chunk c (features 4 c .. 4 c + 3) of sample lane % 8, held across the warp in v
// (lane e * 8 + l: feature 4 c + e of sample l); TAIL: only features below d.
template <bool TAIL>
__device__ __forceinline__ float deepf_terms(float r, const float4* ws4, int c, float v, int l, int d) {
  const float4 wq = ws4[c];
  const float v0 = __shfl_sync(0xffffffffu, v, l);
  const float v1 = __shfl_sync(0xffffffffu, v, 8 + l);
  const float v2 = __shfl_sync(0xffffffffu, v, 16 + l);
  const float v3 = __shfl_sync(0xffffffffu, v, 24 + l);
  if (!TAIL || 4 * c < d) r = __fadd_rn(r, __fmul_rn(wq.x, v0));
  if (!TAIL || 4 * c + 1 < d) r = __fadd_rn(r, __fmul_rn(wq.y, v1));
  if (!TAIL || 4 * c + 2 < d) r = __fadd_rn(r, __fmul_rn(wq.z, v2));
  if (!TAIL || 4 * c + 3 < d) r = __fadd_rn(r, __fmul_rn(wq.w, v3));
  return r;
}

template <int C, int D, int F, int US>
__device__ __forceinline__ void deepf_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles, float* __restrict__ rbuf) {
  extern __shared__ float4 sm4[];
  const float4* ws4 = sm4;
  float* wsf = reinterpret_cast<float*>(sm4);
  unsigned* tick = reinterpret_cast<unsigned*>(rbuf + n);  // chain, gradient tickets; done a tile
  const int dq = (d + 3) >> 2;                               // chunks of 4 features
  for (int j = threadIdx.x; j < 4 * dq; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int subs = 4 * ((len + LANES - 1) / LANES);

  static_assert(C == 4, "one whole slice a step");
  if (w < C) {
    const int e = lane >> 3;
    const int l = lane & 7;
    const int dqp = (dq + D - 1) / D * D;  // chunks a sub-slice in the ring (a multiple of D)
    const int dfull = d >> 2;              // whole chunks
    // feature e of sample l of sub-slice k (past the batch: sample 0 of it)
    const auto row = [&](int k) {
      int i = 32 * (k >> 2) + 8 * (k & 3) + l;
      return sample_row(x, start + (i < len ? i : 0), d);
    };
    // a slice a ticket for the 4 chain warps, warp w its group w (a named barrier a slice)
    int* slot = reinterpret_cast<int*>(sm4 + dq);
    int step = 0;
    const auto take = [&]() {
      if (w == 0 && lane == 0) slot[step & 1] = (int)atomicAdd(tick, 1u);
      named_bar_sync(1, 32 * C);
      const int v = 4 * slot[step & 1] + w;
      ++step;
      return v;
    };
    int k = take();
    int kn = take();
    if (k >= subs) return;
    const float* p = row(k);
    const float* pn = kn < subs ? row(kn) : p;
    // chunk q of the stream: q < dqp this sub-slice's (clamped to its last chunk), then the next's
    const auto ld = [&](int q) {
      const float* s = q < dqp ? p : pn;
      const int c = min(q < dqp ? q : q - dqp, dq - 1);
      return s[32 * min(4 * c + e, d - 1)];
    };
    float buf[D];
#pragma unroll
    for (int u = 0; u < D; ++u) buf[u] = ld(u);
    for (;;) {
      const int i = 32 * (k >> 2) + 8 * (k & 3) + l;
      const float yv = y[start + (i < len ? i : 0)];
      float r = 0.0f;
      for (int cb = 0; cb < dqp; cb += D) {
        if (cb + 2 * D <= dfull) {
          // the loads stay in this sub-slice's whole chunks: fixed offsets from one address
          const float* pb = p + 32 * e + 128 * (cb + D);
#pragma unroll
          for (int u = 0; u < D; ++u) {
            r = deepf_terms<false>(r, ws4, cb + u, buf[u], l, d);
            buf[u] = pb[128 * u];
          }
        } else if (cb + D <= dfull) {
#pragma unroll
          for (int u = 0; u < D; ++u) {
            r = deepf_terms<false>(r, ws4, cb + u, buf[u], l, d);
            buf[u] = ld(cb + u + D);
          }
        } else {
#pragma unroll
          for (int u = 0; u < D; ++u) {
            if (cb + u < dq) r = deepf_terms<true>(r, ws4, cb + u, buf[u], l, d);
            buf[u] = ld(cb + u + D);
          }
        }
      }
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, yv);
      if (lane < GROUP_LANES && i < len) {
        rbuf[i] = r;
        __threadfence();
      }
      __syncwarp();
      if (lane == 0) atomicAdd(tick + 2 + (k >> 7), 1u);  // sub-slice k is in tile k / 128
      k = kn;
      kn = take();
      if (k >= subs) return;
      p = pn;
      pn = kn < subs ? row(kn) : p;
    }
  }

  const int groups = (d + F - 1) / F + 1;  // the last one: bias and loss
  for (;;) {
    const int task = warp_ticket(tick + 1, lane);
    if (task >= tiles * groups) return;
    const int t = task / groups;
    const int g = task - t * groups;
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
    const unsigned need = 4u * ((cnt + LANES - 1) / LANES);
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
        for (int f = 0; f < F; ++f) v[u][f] = xp[32 * min(j0 + f, d - 1)];  // past d: feature d - 1 again
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

// Parameters: those of the deep passes (rbuf: the batch's residuals, then 2 + tiles counters that
// the host zeroes before each launch). C chain warps with D chunks ahead, A gradient warps of F
// features and US slices ahead.
#define DEEPF_KERNEL(NAME, C, A, D, F, US)                                                         \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), 1) NAME(SMALL_ARGS, float* __restrict__ rbuf) { \
    deepf_body<C, D, F, US>(x, y, n, d, start, len, params, bias, out, tiles, rbuf);              \
  }
