#pragma once

// parreg local sums: the kernel bodies of small and narrow (a warp a tile, every accumulator in
// registers). local_sums.cuh includes every family in order; common.cuh holds the layout and the
// build flags.

#include "common.cuh"

// ---------------------------------------------------------------------------------------------
// Small d (d <= DMAX <= 16) and narrow d (16 < d <= DMAX <= 64): one warp per tile, one thread
// per lane, every accumulator of the lane in registers, x in the plain slice layout (no padding:
// every byte read is a feature of the batch). Loads are 4-byte, coalesced per feature row (128
// bytes per warp), U slices loaded before any is used so that many loads are in flight. The
// small kernels keep the weights in registers (W = float[DMAX]); the narrow ones, which need
// their registers for 2 DMAX accumulator halves and U DMAX values, take them by value (W =
// WParam).
// ---------------------------------------------------------------------------------------------
template <int DMAX, int U, bool ORDERED, class W>
__device__ __forceinline__ void small_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                           i64 start, int len, const W& w, float b, int bias,
                                           double* __restrict__ out, int tiles) {
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  double acc[DMAX];
  double accb = 0.0, accl = 0.0;
#pragma unroll
  for (int j = 0; j < DMAX; ++j) acc[j] = 0.0;
  const float* ys = y + start;

  for (int t = gw; t < tiles; t += nw) {
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
    for (int s0 = 0; s0 < SLICES; s0 += U) {
      float xv[U][DMAX];
      float yv[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = base + (s0 + u) * LANES + lane;
        const bool ok = (s0 + u) * LANES + lane < cnt;
#pragma unroll
        for (int j = 0; j < DMAX; ++j) xv[u][j] = (ok && j < d) ? x[xat(j, start + i, d)] : 0.0f;
        yv[u] = ok ? ys[i] : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if ((s0 + u) * LANES + lane < cnt) {
          float r = 0.0f;
#pragma unroll
          for (int j = 0; j < DMAX; ++j)
            if (j < d) r = __fadd_rn(r, __fmul_rn(weight(w, j), xv[u][j]));
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
    }
    if (ORDERED) {
#pragma unroll
      for (int j = 0; j < DMAX; ++j) {
        if (j < d) {
          const double v = lane_tree(acc[j]);
          if (lane == 0) out[(i64)j * tiles + t] = v;
        }
        acc[j] = 0.0;
      }
      const double vb = lane_tree(accb);
      const double vl = lane_tree(accl);
      if (lane == 0) {
        out[(i64)d * tiles + t] = vb;
        out[(i64)(d + 1) * tiles + t] = vl;
      }
      accb = 0.0;
      accl = 0.0;
    }
  }
  if (!ORDERED) {
#pragma unroll
    for (int j = 0; j < DMAX; ++j) {
      if (j < d) {
        const double v = lane_tree(acc[j]);
        if (lane == 0) atomicAdd(out + j, v);
      }
    }
    const double vb = lane_tree(accb);
    const double vl = lane_tree(accl);
    if (lane == 0) {
      atomicAdd(out + d, vb);
      atomicAdd(out + d + 1, vl);
    }
  }
}

#define SMALL_KERNEL(NAME, DMAX, U, ORD)                                                           \
  extern "C" __global__ void __launch_bounds__(256) NAME(SMALL_ARGS) {                           \
    float w[DMAX];                                                                                 \
    _Pragma("unroll") for (int j = 0; j < DMAX; ++j) w[j] = j < d ? params[j] : 0.0f;             \
    small_body<DMAX, U, ORD>(x, y, d, start, len, w, bias ? params[d] : 0.0f, bias, out, tiles);   \
  }

// Parameters: those of the flow kernels (the weights by value). Blocks of 2 warps: at 128 to 214
// registers a thread, blocks of 8 warps would leave a third of an SM's registers unused.
#define NARROW_KERNEL(NAME, DMAX, U, ORD)                                                          \
  extern "C" __global__ void __launch_bounds__(64)                                                \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    small_body<DMAX, U, ORD>(x, y, d, start, len, wp, wp.b, bias, out, tiles);                     \
  }
