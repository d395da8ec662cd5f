#pragma once

// parreg local sums on CUDA: the kernel bodies (templates) of SPEC section 2, steps 1 to 3 and
// the loss, in the reduction order of parreg.device.ReductionOrder ("tile1024-lane32-pairwise/v1").
// local_sums.cu instantiates the kernels the product runs; the benchmark's comparison kernels
// (bench/src/main/resources/parreg/bench/kernels/comparison_sums.cu) instantiate the same bodies
// unordered. Nothing here is a kernel by itself: a body becomes one in the instantiating file.
//
// Build flags (scripts/build/gen-ptx.sh, never by hand): -ftz=false -prec-div=true -prec-sqrt=true
// -fmad=false, and every floating-point operation below is also written as an explicit
// round-to-nearest intrinsic (__fmul_rn, __fadd_rn, ...), which the compiler never contracts into
// a fused multiply-add nor flushes to zero.
//
// Data layout (resident, uploaded once): x in 32-sample slices, feature j of sample i at
// x[(i / 32) * 32 d + 32 j + i % 32] (see xat; the host pads the last slice), y[i], binary32.
// A warp's 32 consecutive samples of one feature are 128 contiguous bytes, and one slice of all
// d features is 128 d contiguous bytes, so every kernel streams memory in large runs whatever d.
// Per launch: params[0..d) = w32 (binary32, rounded on the host), params[d] = b32 when bias.
//
// Output coordinates c = 0..d+1: c < d the gradient sum of feature c, c = d the sum of r (the
// bias coordinate; computed always, read only when the model has a bias), c = d + 1 the loss
// sum of (double) r * (double) r.
//
// Ordered kernels write one value per (coordinate, tile) to out[c * tiles + t]: the pairwise
// tree over the 32 lane sums of that tile (a warp's xor butterfly; IEEE addition commutes, so
// every lane ends with the bits of level-by-level a[2i] + a[2i+1]). tree_pass then combines
// tiles level by level; an aligned group of 2^k tiles is a complete subtree of the tile tree
// and odd counts carry their last element unchanged, which is ReductionOrder.pairwise.
//
// ORDERED = false gives the atomic (unordered) variants, which only the benchmark instantiates:
// they keep their accumulators across tiles and atomically add them to out[c]; their bits depend
// on scheduling.

#define TILE 1024
#define LANES 32
#define SLICES 32  // TILE / LANES

typedef long long i64;

// Index of feature j of sample gi (absolute) in the slice layout.
__device__ __forceinline__ i64 xat(int j, i64 gi, int d) {
  return (gi >> 5) * ((i64)d * 32) + (i64)j * 32 + (gi & 31);
}

// Index of feature j of sample gi in the quad layout (the quad plan, 64 < d <= 256): slice
// s = gi / 32 holds d4 = d rounded up to 4 features of its 32 samples as [d4 / 4][32][4], i.e.
// four consecutive features of one sample are one 16-byte vector; padding features are zeros.
__device__ __forceinline__ i64 xq(int j, i64 gi, int d4) {
  return (gi >> 5) * ((i64)d4 * 32) + ((i64)(j >> 2) * 32 + (gi & 31)) * 4 + (j & 3);
}

__device__ __forceinline__ double lane_tree(double v) {
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 1));
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 2));
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 4));
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 8));
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 16));
  return v;
}

// The accumulation shared by the block-per-tile kernels (large, pipe, flow). Thread (warp v, lane)
// adds r * x of the P staged slices of step q (stage st: [P][d][32] floats; residuals rc: [P][32])
// to its features j = v + 32 k in slice order, and warp lw adds the bias and loss terms; samples
// at or past cnt (tile-relative) are skipped.
template <int K, int P>
__device__ __forceinline__ void slices_accumulate(double (&acc)[K], double& accb, double& accl, const float* st,
                                                  const float* rc, int d, int q, int cnt, int v, int lane, int lw) {
#pragma unroll
  for (int p = 0; p < P; ++p) {
    if ((q * P + p) * LANES + lane < cnt) {
      const float rl = rc[p * LANES + lane];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = v + 32 * k;
        if (j < d) acc[k] = __dadd_rn(acc[k], (double)__fmul_rn(rl, st[(p * d + j) * LANES + lane]));
      }
      if (v == lw) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
  }
}

// The bias and loss sums of a tile (ORDERED: out[c * tiles + t]) or of the kernel (atomic:
// out[c]), c = d and d + 1, from the warp that holds them; they restart at +0.0.
template <bool ORDERED>
__device__ __forceinline__ void bias_loss_write(double& accb, double& accl, double* out, int d, int tiles, int t,
                                                int lane) {
  const double sb = lane_tree(accb);
  const double sl = lane_tree(accl);
  if (lane == 0) {
    if (ORDERED) {
      out[(i64)d * tiles + t] = sb;
      out[(i64)(d + 1) * tiles + t] = sl;
    } else {
      atomicAdd(out + d, sb);
      atomicAdd(out + d + 1, sl);
    }
  }
  accb = 0.0;
  accl = 0.0;
}

// End of a tile in the ordered kernels: each accumulator's lane tree goes to out[c * tiles + t]
// (bias sum and loss sum from warp lw), and the accumulators restart at +0.0 for the next tile.
template <int K>
__device__ __forceinline__ void tile_write(double (&acc)[K], double& accb, double& accl, double* out,
                                           int d, int tiles, int t, int v, int lane, int lw) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = v + 32 * k;
    if (j < d) {
      const double s = lane_tree(acc[k]);
      if (lane == 0) out[(i64)j * tiles + t] = s;
    }
    acc[k] = 0.0;
  }
  if (v == lw) bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
}

// End of the atomic (benchmark-only) kernels: the accumulators of all tiles added to out[c].
template <int K>
__device__ __forceinline__ void atomic_finish(const double (&acc)[K], double accb, double accl,
                                              double* out, int d, int v, int lane, int lw) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = v + 32 * k;
    if (j < d) {
      const double s = lane_tree(acc[k]);
      if (lane == 0) atomicAdd(out + j, s);
    }
  }
  if (v == lw) bias_loss_write<false>(accb, accl, out, d, 1, 0, lane);
}

// The weights by value (the flow, quad, spec and narrow kernels): a kernel parameter, so that a
// chain fully unrolled over compile-time feature indices multiplies by constant-bank operands
// and holds no weight in a register.
struct WParam {
  float w[256];  // w32[0..d), the rest unused
  float b;       // b32 (0 without bias)
};

// Weight j of the small kernels (registers) and of the narrow ones (the by-value parameter).
template <int N>
__device__ __forceinline__ float weight(const float (&w)[N], int j) {
  return w[j];
}
__device__ __forceinline__ float weight(const WParam& wp, int j) { return wp.w[j]; }

// The arguments every kernel takes first, in this order (CudaBackend.kernelArgs).
#define SMALL_ARGS                                                                                  \
  const float *__restrict__ x, const float *__restrict__ y, i64 n, int d, i64 start, int len,      \
      const float *__restrict__ params, int bias, double *__restrict__ out, int tiles
#define SMALL_PASS x, y, n, d, start, len, params, bias, out, tiles
