#pragma once

// parreg local sums: the kernel bodies of the two passes over any d (resid, grad; also the wide
// plans' batches at offsets). local_sums.cuh includes every family in order; common.cuh holds the
// layout and the build flags.

#include "common.cuh"
#include "wide.cuh"

// ---------------------------------------------------------------------------------------------
// Any d (used above 1,024; and the wide plan's batches that do not start on a slice boundary,
// OCT): two passes over x. resid_pass: one warp per tile, lane l computes the
// residuals of its samples (features in index order), stores them to rbuf (batch-relative) and
// sums the bias and loss terms in lane order. grad_pass: one warp per (tile, feature), lane l
// adds r * x of its samples in slice order. Blocks of 256 threads (8 warps).
// ---------------------------------------------------------------------------------------------
// x_index: feature j of sample gi in the layout the plan keeps resident (OCT: the wide plan's
// octet layout, xo, of d rounded up to 128 features; otherwise the slice layout, xat).
// GL 4 with OCT: the quartet layout of the widetq plans (xo4).
template <bool OCT, int GL = 8>
__device__ __forceinline__ i64 x_index(int j, i64 gi, int d) {
  return OCT ? (GL == 4 ? xo4(j, gi, (d + 127) & ~127) : xo(j, gi, (d + 127) & ~127)) : xat(j, gi, d);
}

template <bool ORDERED, bool OCT = false, int GL = 8>
__device__ __forceinline__ void resid_body(const float* __restrict__ x, const float* __restrict__ y, i64 n,
                                           int d, i64 start, int len, const float* __restrict__ params,
                                           int bias, double* __restrict__ out, int tiles,
                                           float* __restrict__ rbuf) {
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  const float b = bias ? params[d] : 0.0f;
  const float* ys = y + start;
  double accb = 0.0, accl = 0.0;
  for (int t = gw; t < tiles; t += nw) {
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
    for (int s = 0; s < SLICES; ++s) {
      const int k0 = s * LANES + lane;
      if (k0 < cnt) {
        const int i = base + k0;
        float r = 0.0f;
#pragma unroll 8
        for (int j = 0; j < d; ++j) r = __fadd_rn(r, __fmul_rn(params[j], x[x_index<OCT, GL>(j, start + i, d)]));
        if (bias) r = __fadd_rn(r, b);
        r = __fsub_rn(r, ys[i]);
        rbuf[i] = r;
        const double rd = (double)r;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    if (ORDERED) {
      const double sb = lane_tree(accb);
      const double sl = lane_tree(accl);
      if (lane == 0) {
        out[(i64)d * tiles + t] = sb;
        out[(i64)(d + 1) * tiles + t] = sl;
      }
      accb = 0.0;
      accl = 0.0;
    }
  }
  if (!ORDERED) {
    const double sb = lane_tree(accb);
    const double sl = lane_tree(accl);
    if (lane == 0) {
      atomicAdd(out + d, sb);
      atomicAdd(out + d + 1, sl);
    }
  }
}

// grid: x = tile groups (grid-stride over tiles), y = feature groups of 8 (one warp a feature)
template <bool ORDERED, bool OCT = false, int GL = 8>
__device__ __forceinline__ void grad_body(const float* __restrict__ x, i64 n, int d, i64 start, int len,
                                          double* __restrict__ out, int tiles, const float* __restrict__ rbuf) {
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.y * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (j >= d) return;
  double acc = 0.0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int base = t * TILE;
    const int cnt = min(TILE, len - base);
#pragma unroll 8
    for (int s = 0; s < SLICES; ++s) {
      const int k0 = s * LANES + lane;
      if (k0 < cnt) {
        const int i = base + k0;
        acc = __dadd_rn(acc, (double)__fmul_rn(rbuf[i], x[x_index<OCT, GL>(j, start + i, d)]));
      }
    }
    if (ORDERED) {
      const double sv = lane_tree(acc);
      if (lane == 0) out[(i64)j * tiles + t] = sv;
      acc = 0.0;
    }
  }
  if (!ORDERED) {
    const double sv = lane_tree(acc);
    if (lane == 0) atomicAdd(out + j, sv);
  }
}
