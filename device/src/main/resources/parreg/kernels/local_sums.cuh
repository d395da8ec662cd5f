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

#define SMALL_ARGS                                                                                  \
  const float *__restrict__ x, const float *__restrict__ y, i64 n, int d, i64 start, int len,      \
      const float *__restrict__ params, int bias, double *__restrict__ out, int tiles
#define SMALL_PASS x, y, n, d, start, len, params, bias, out, tiles

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


// ---------------------------------------------------------------------------------------------
// Narrow d, warp-specialised on the plain slice layout (16 < d <= DM; the specp plans):
// spec_body's block (C chain warps, A accumulating warps, a slot a chain warp, FULL / EMPTY named
// barriers, no block-wide barrier), but x stays in the plain slice layout of small and split (no
// padding: at d = 17 spec-24 read 25 / 18 of the batch's bytes). A slice is 32 d contiguous
// floats, 8 d 16-byte vectors: the chain warp's lanes load it as QM rows of 32 vectors (the last
// row partial where 8 d is not a multiple of 32) into registers, store the rows into their slot
// unchanged, and each lane then runs its sample's binary32 residual chain from the slot (feature
// j of lane l at column 32 j + l: no bank conflict), features in order, weights by value (the
// constant bank); r (+ b, - y) goes into the slot's residuals and the warp arrives at FULL. The
// next slice's rows are loaded right after the stores, so they are in flight during the chain.
// Accumulating warp a owns features a, a + A, ... (FA of them, a power of two): it waits at FULL,
// adds r * x of its features from the slot in slice order (warp 0 also the bias and loss), arrives
// at EMPTY, and at the end of each tile writes the lane trees (transposed butterfly, as spec_write).
// Same operations in the same order as small_body, so the same bits. Batches that do not start on
// a slice boundary run the split kernel of the same d (same layout). Dynamic shared memory: C slots
// of 32 QM vectors, then C * 32 residuals.
// ---------------------------------------------------------------------------------------------
template <int DM, int C, int A>
__device__ __forceinline__ void specp_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                           int len, const WParam& wp, int bias, double* __restrict__ out,
                                           int tiles) {
  constexpr int S = C;                      // a slot a chain warp
  constexpr int QM = (8 * DM + 31) / 32;    // rows of 32 vectors a slice holds at most
  constexpr int FA = (DM + A - 1) / A;      // features an accumulating warp owns at most
  static_assert(2 * S < 16, "barriers 1 .. 2 S");
  static_assert((FA & (FA - 1)) == 0 && FA >= 2 && FA <= 32, "FA a power of two, 2 .. 32");
  constexpr int NB = 32 * (A + 1);  // threads at each slot barrier
  extern __shared__ float4 sm4[];
  float4* slots = sm4;                                      // S slots of QM * 32 vectors
  float* rs = reinterpret_cast<float*>(sm4 + S * QM * 32);  // S * 32 residuals
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int G = gridDim.x;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / G + 1 : 0;
  if (myTiles == 0) return;
  const int lastCnt = min(TILE, len - (blockIdx.x + (myTiles - 1) * G) * TILE);
  const int total = (myTiles - 1) * SLICES + (lastCnt + LANES - 1) / LANES;  // slices of this block
  const int nv = 8 * d;                                                      // vectors a slice

  if (w < C) {
    // Chain warp: slices w, w + C, ..., always slot w. Loads at fixed offsets from the slice
    // (predicated on the row's vector existing, never on a computed branch), past the last slice
    // the current one again and y = 0.0, as spec_body.
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float* ys = y + start;
    int k = w;
    if (k >= total) return;
    float4 buf[QM];
    int t = blockIdx.x + (k >> 5) * G;
    int k0 = (k & 31) * LANES + lane;
    const float4* src = x4 + ((start + (i64)t * TILE + (k & 31) * LANES) >> 5) * (i64)nv + lane;
    bool yok = k0 < min(TILE, len - t * TILE);
    float yv = ys[yok ? t * TILE + k0 : 0];
    yv = yok ? yv : 0.0f;
#pragma unroll
    for (int q = 0; q < QM; ++q) buf[q] = q * LANES + lane < nv ? src[q * LANES] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4* slot = slots + w * QM * 32;
    const float* col = reinterpret_cast<const float*>(slot) + lane;
    for (; k < total; k += C) {
      const int kn = k + C;
      const bool more = kn < total;
      t = blockIdx.x + ((more ? kn : k) >> 5) * G;
      k0 = ((more ? kn : k) & 31) * LANES + lane;
      const float4* srcn =
          more ? x4 + ((start + (i64)t * TILE + (kn & 31) * LANES) >> 5) * (i64)nv + lane : src;
      yok = more && k0 < min(TILE, len - t * TILE);
      float yn = ys[yok ? t * TILE + k0 : 0];
      yn = yok ? yn : 0.0f;
      if (k >= S) named_bar_sync(1 + S + w, NB);  // the accumulators are done with slice k - S
#pragma unroll
      for (int q = 0; q < QM; ++q)
        if (q * LANES + lane < nv) slot[q * LANES + lane] = buf[q];
#pragma unroll
      for (int q = 0; q < QM; ++q)
        buf[q] = q * LANES + lane < nv ? srcn[q * LANES] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      __syncwarp();  // the slot's rows, stored by all lanes, before any lane's chain reads them
      float r = 0.0f;
#pragma unroll
      for (int j = 0; j < DM; ++j)
        if (j < d) r = __fadd_rn(r, __fmul_rn(wp.w[j], col[j * LANES]));
      if (bias) r = __fadd_rn(r, wp.b);
      r = __fsub_rn(r, yv);
      rs[w * LANES + lane] = r;
      named_bar_arrive(1 + w, NB);  // slot w holds slice k and its residuals
      src = srcn;
      yv = yn;
    }
    return;
  }

  // Accumulating warp a: every slice in order, features a, a + A, ... of the slot.
  const int a = w - C;
  double acc[FA];
#pragma unroll
  for (int i = 0; i < FA; ++i) acc[i] = 0.0;
  double accb = 0.0, accl = 0.0;
  for (int k = 0; k < total; ++k) {
    const int s = k % S;
    const int q = k & 31;
    const int t = blockIdx.x + (k >> 5) * G;
    const int cnt = min(TILE, len - t * TILE);
    named_bar_sync(1 + s, NB);
    if ((q + 1) * LANES <= cnt || q * LANES + lane < cnt) {
      const float rl = rs[s * LANES + lane];
      const float* col = reinterpret_cast<const float*>(slots + s * QM * 32) + lane;
#pragma unroll
      for (int c = 0; c < FA; ++c)
        if (a + A * c < d) acc[c] = __dadd_rn(acc[c], (double)__fmul_rn(rl, col[(a + A * c) * LANES]));
      if (a == 0) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    if (k + S < total) named_bar_arrive(1 + S + s, NB);  // slot s free for slice k + S
    if (q == SLICES - 1 || k == total - 1) {  // end of tile t: the lane trees of warp a's features
      const double sv = lanes_transposed_sum<FA>(acc, lane);
      const int i = (int)(__brev((unsigned)lane) >> (32 - __ffs(FA) + 1));  // as spec_write
      const int j = a + A * i;
      if (lane < FA && j < d) out[(i64)j * tiles + t] = sv;
#pragma unroll
      for (int c = 0; c < FA; ++c) acc[c] = 0.0;
      if (a == 0) bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
    }
  }
}

// Parameters: those of the spec kernels (the weights by value); MB blocks an SM (the register cap).
// Name: specp_o_DM_CxAmMB.
#define SPECP_KERNEL(NAME, DM, C, A, MB)                                                          \
  extern "C" __global__ void __launch_bounds__(32 * (C + A), MB)                                 \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    specp_body<DM, C, A>(x, y, d, start, len, wp, bias, out, tiles);                               \
  }

// ---------------------------------------------------------------------------------------------
// Narrow d, split chain (16 < d <= K F): small_body's shape (a thread per lane of a tile, the
// lane's accumulators in registers, x in the plain slice layout, any batch start), but a tile
// belongs to a team of K warps that split its features, so each thread holds at most F of them
// (small-16's registers at F = 16) where narrow held d: warp k owns features [lo_k, lo_k+1),
// lo_k = k d / K. A sample's binary32 residual chain runs through the team in feature order:
// warp k continues the r that warp k - 1 left in shared memory (named barrier FULL_k, one per
// group of U slices), the last warp adds b, subtracts y and hands r back to the others (barrier
// FIN); every warp then adds r * x of its own features, the last one the bias and loss terms. The
// same operations in the same order as small_body, so the same bits. PF: the next group's loads
// are issued before this group's chain (two groups of registers). T teams a block, team m uses
// barriers 1 + K m .. K m + K. ORDERED only. Dynamic shared memory: T K U 32 residuals, then K F
// weights.
// ---------------------------------------------------------------------------------------------
// Group g of a team (tile t = tm + (g / (32 / U)) G): warp k's features of U slices, and y (last
// warp). Samples past the batch read the tile's first sample and count 0.0 (loads at fixed
// offsets, no branch, so that they are issued where they are written).
template <int F, int U>
__device__ __forceinline__ void split_load(const float* __restrict__ x, const float* __restrict__ ys, int d, i64 start,
                                           int len, int t, int s0, int lo, int fc, bool last, int lane,
                                           float (&xv)[U][F], float (&yv)[U]) {
  const int cnt = min(TILE, len - t * TILE);
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = (s0 + u) * LANES + lane;
    const bool ok = i < cnt;
    const int bi = t * TILE + (ok ? i : 0);
    const float* p = x + xat(lo, start + bi, d);
#pragma unroll
    for (int j = 0; j < F; ++j) xv[u][j] = (ok && j < fc) ? p[32 * j] : 0.0f;
    yv[u] = (ok && last) ? ys[bi] : 0.0f;
  }
}

// PD > 0 (comparison shapes): each group's turn first prefetches into the L2 the team's group PD
// turns ahead (all its samples' slices, the team's warps taking PS-byte lines in turn).
template <int K, int F, int U, int T, bool PF, int PD = 0, int PS = 128>
__device__ __forceinline__ void split_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                           int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles) {
  static_assert(T * K < 16 && SLICES % U == 0 && K >= 2, "barriers 1 .. T K; whole groups a tile");
  constexpr int GT = SLICES / U;  // groups a tile
  extern __shared__ float4 sm4[];
  float* rs = reinterpret_cast<float*>(sm4);  // [T][K][U][32]: r after warp k's features (K - 1: final)
  float* ws = rs + T * K * U * LANES;         // the weights: one shared load serves U products
  const int lane = threadIdx.x & 31;
  const int team = (threadIdx.x >> 5) / K;
  const int k = (threadIdx.x >> 5) % K;
  const int lo = k * d / K;
  const int fc = (k + 1) * d / K - lo;
  const int bar = 1 + team * K;  // bar + k: warp k's r is in rs (k < K - 1: FULL of warp k + 1)
  const bool last = k == K - 1;  // bar + K - 1: FIN
  for (int j = threadIdx.x; j < K * F; j += blockDim.x) ws[j] = j < d ? params[j] : 0.0f;
  __syncthreads();
  const float b = bias ? params[d] : 0.0f;
  double acc[F];
#pragma unroll
  for (int j = 0; j < F; ++j) acc[j] = 0.0;
  double accb = 0.0, accl = 0.0;
  const float* ys = y + start;
  const int G = gridDim.x * T;
  const int tm = blockIdx.x * T + team;
  const int myTiles = tm < tiles ? (tiles - 1 - tm) / G + 1 : 0;
  if (myTiles == 0) return;  // the whole team: the barriers are its own
  const int lastCnt = min(TILE, len - (tm + (myTiles - 1) * G) * TILE);
  const int total = (myTiles - 1) * GT + (lastCnt + U * LANES - 1) / (U * LANES);  // groups of the team

  float xv[U][F], yv[U];
  if (PF) split_load<F, U>(x, ys, d, start, len, tm, 0, lo, fc, last, lane, xv, yv);
  for (int g = 0; g < total; ++g) {
    const int t = tm + (g / GT) * G;
    const int s0 = (g % GT) * U;
    const int cnt = min(TILE, len - t * TILE);
    if constexpr (PD > 0) {
      const int gp = g + PD;
      if (gp < total) {  // the slices of samples a .. e of group gp (any batch start)
        const i64 a = start + (i64)(tm + (gp / GT) * G) * TILE + (gp % GT) * U * LANES;
        const i64 e = min(a + U * LANES, start + (i64)len) - 1;
        const i64 b0 = (a >> 5) * (i64)d * 128;
        prefetch_range<PS>(reinterpret_cast<const char*>(x) + b0, ((e >> 5) + 1) * (i64)d * 128 - b0, k * LANES + lane,
                           K * LANES);
      }
    }
    float xn[U][F], yn[U];
    if (PF) {  // the next group (past the last one: this one again)
      const int gn = g + 1 < total ? g + 1 : g;
      split_load<F, U>(x, ys, d, start, len, tm + (gn / GT) * G, (gn % GT) * U, lo, fc, last, lane, xn, yn);
    } else {
      split_load<F, U>(x, ys, d, start, len, t, s0, lo, fc, last, lane, xv, yv);
    }
    float r[U];
    if (k > 0) {
      named_bar_sync(bar + k - 1, 64);
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = rs[((team * K + k - 1) * U + u) * LANES + lane];
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = 0.0f;
    }
#pragma unroll
    for (int j = 0; j < F; ++j)
      if (j < fc) {
#pragma unroll
        for (int u = 0; u < U; ++u) r[u] = __fadd_rn(r[u], __fmul_rn(ws[lo + j], xv[u][j]));
      }
    if (last) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (bias) r[u] = __fadd_rn(r[u], b);
        r[u] = __fsub_rn(r[u], yv[u]);
        rs[((team * K + k) * U + u) * LANES + lane] = r[u];
      }
      named_bar_arrive(bar + k, 32 * K);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) rs[((team * K + k) * U + u) * LANES + lane] = r[u];
      named_bar_arrive(bar + k, 64);
      named_bar_sync(bar + K - 1, 32 * K);
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = rs[((team * K + K - 1) * U + u) * LANES + lane];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if ((s0 + u) * LANES + lane < cnt) {
#pragma unroll
        for (int j = 0; j < F; ++j)
          if (j < fc) acc[j] = __dadd_rn(acc[j], (double)__fmul_rn(r[u], xv[u][j]));
        if (last) {
          const double rd = (double)r[u];
          accb = __dadd_rn(accb, rd);
          accl = __dadd_rn(accl, __dmul_rn(rd, rd));
        }
      }
    }
    if (s0 + U == SLICES || g == total - 1) {  // end of tile t: its lane trees, warp k's features
      if constexpr ((F & (F - 1)) == 0) {
        const double sv = lanes_transposed_sum<F>(acc, lane);
        const int i = (int)(__brev((unsigned)lane) >> (32 - __ffs(F) + 1));  // as spec_write
        if (lane < F && i < fc) out[(i64)(lo + i) * tiles + t] = sv;
      } else {
#pragma unroll
        for (int j = 0; j < F; ++j)
          if (j < fc) {
            const double s = lane_tree(acc[j]);
            if (lane == 0) out[(i64)(lo + j) * tiles + t] = s;
          }
      }
#pragma unroll
      for (int j = 0; j < F; ++j) acc[j] = 0.0;
      if (last) bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
    }
    if (PF) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        yv[u] = yn[u];
#pragma unroll
        for (int j = 0; j < F; ++j) xv[u][j] = xn[u][j];
      }
    }
  }
}

// Parameters: those of the small kernels (the weights in registers, F a warp); MB blocks an SM
// (the register cap). Name: split_o_KxF_uUtT[p] (p: PF).
#define SPLIT_KERNEL(NAME, K, F, U, T, PF, MB)                                                      \
  extern "C" __global__ void __launch_bounds__(32 * K * T, MB) NAME(SMALL_ARGS) {                 \
    split_body<K, F, U, T, PF>(x, y, d, start, len, params, bias, out, tiles);                     \
  }
// the same with the L2 prefetch of the group PD turns ahead, PS-byte lines (name: ...[p]fPD at
// PS = 128, ...[p]gPD at PS = 32)
#define SPLIT_KERNEL_PF(NAME, K, F, U, T, PF, MB, PD, PS)                                           \
  extern "C" __global__ void __launch_bounds__(32 * K * T, MB) NAME(SMALL_ARGS) {                 \
    split_body<K, F, U, T, PF, PD, PS>(x, y, d, start, len, params, bias, out, tiles);             \
  }
// ---------------------------------------------------------------------------------------------
// Narrow d in registers, loads ahead (the narrowp plans; 16 < d <= DMAX <= 48: WParam holds 256
// weights and the lane trees past 16 go one by one, so nothing but the registers bounds DMAX): small_body
// (a warp per tile, a thread per lane, all DMAX accumulators of the lane in registers, x in the
// plain slice layout, any batch start) with two changes aimed at d = 17..20, where small-16 reads
// 3.95 TB/s at 16 but the split chain only 3.2-3.5 at 17: the weights by value (constant-bank
// operands of the unrolled chain, so no register holds one: narrow's), and, PF, the next group of
// U slices loaded before this group's chains (split's p), so that a warp has loads in flight while
// it computes instead of alternating. The loads are split_load's (samples past the batch read
// the tile's first sample and count 0.0). The same operations in the same order as small_body
// (the chain in feature order, + b, - y; r x in binary64 in slice order a lane), so the same bits;
// the tile's first 16 lane trees through lanes_transposed_sum (same pairs, same bits), the rest
// one by one. ORDERED only; a warp takes tiles gw, gw + nw, ... (CudaBackend's balanced grid).
// ---------------------------------------------------------------------------------------------
template <int DMAX, int U, bool PF>
__device__ __forceinline__ void narrowp_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                             i64 start, int len, const WParam& wp, int bias,
                                             double* __restrict__ out, int tiles) {
  static_assert(SLICES % U == 0 && DMAX > 16 && DMAX <= 48, "whole groups a tile; 16 < DMAX <= 48");
  constexpr int GT = SLICES / U;  // groups a tile
  const int lane = threadIdx.x & 31;
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nw = (gridDim.x * blockDim.x) >> 5;
  const int myTiles = gw < tiles ? (tiles - 1 - gw) / nw + 1 : 0;
  if (myTiles == 0) return;
  const int lastCnt = min(TILE, len - (gw + (myTiles - 1) * nw) * TILE);
  const int total = (myTiles - 1) * GT + (lastCnt + U * LANES - 1) / (U * LANES);  // groups of the warp
  const float b = bias ? wp.b : 0.0f;
  double acc[DMAX];
#pragma unroll
  for (int j = 0; j < DMAX; ++j) acc[j] = 0.0;
  double accb = 0.0, accl = 0.0;
  const float* ys = y + start;
  float xv[U][DMAX], yv[U];
  if (PF) split_load<DMAX, U>(x, ys, d, start, len, gw, 0, 0, d, true, lane, xv, yv);
  for (int g = 0; g < total; ++g) {
    const int t = gw + (g / GT) * nw;
    const int s0 = (g % GT) * U;
    const int cnt = min(TILE, len - t * TILE);
    float xn[U][DMAX], yn[U];
    if (PF) {  // the next group (past the last one: this one again)
      const int gn = g + 1 < total ? g + 1 : g;
      split_load<DMAX, U>(x, ys, d, start, len, gw + (gn / GT) * nw, (gn % GT) * U, 0, d, true, lane, xn, yn);
    } else {
      split_load<DMAX, U>(x, ys, d, start, len, t, s0, 0, d, true, lane, xv, yv);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if ((s0 + u) * LANES + lane < cnt) {
        float r = 0.0f;
#pragma unroll
        for (int j = 0; j < DMAX; ++j)
          if (j < d) r = __fadd_rn(r, __fmul_rn(wp.w[j], xv[u][j]));
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
    if (s0 + U == SLICES || g == total - 1) {  // end of tile t
      double lo16[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) lo16[j] = acc[j];
      const double sv = lanes_transposed_sum<16>(lo16, lane);
      const int i = (int)(__brev((unsigned)lane) >> 28);  // as spec_write at N = 16
      if (lane < 16) out[(i64)i * tiles + t] = sv;         // d > 16: features 0..15 all exist
#pragma unroll
      for (int j = 16; j < DMAX; ++j)
        if (j < d) {
          const double s = lane_tree(acc[j]);
          if (lane == 0) out[(i64)j * tiles + t] = s;
        }
#pragma unroll
      for (int j = 0; j < DMAX; ++j) acc[j] = 0.0;
      bias_loss_write<true>(accb, accl, out, d, tiles, t, lane);
    }
    if (PF) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        yv[u] = yn[u];
#pragma unroll
        for (int j = 0; j < DMAX; ++j) xv[u][j] = xn[u][j];
      }
    }
  }
}

// Parameters: the narrow kernels' (the weights by value); blocks of BLOCK threads, MB blocks an SM
// (the register cap). Name: narrowp_o_DMAX_uU[p]_bBLOCK (p: PF).
#define NARROWP_KERNEL(NAME, DMAX, U, PF, BLOCK, MB)                                               \
  extern "C" __global__ void __launch_bounds__(BLOCK, MB)                                         \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    narrowp_body<DMAX, U, PF>(x, y, d, start, len, wp, bias, out, tiles);                          \
  }
// ---------------------------------------------------------------------------------------------
// Wide d, warp-specialised in lane groups (256 < d <= 4 Q <= 1,024; x resident in the octet
// layout, xo, padded to W = 4 Q features; batches that start on a slice boundary, the others run
// the two passes over the same layout, resid8_o / grad8_o). A tile's accumulators (32 lanes x d
// doubles, 256 KB at d = 1,024) do not fit a block, and a whole slice (128 KB) leaves no room for
// a ring of them, so a block takes a tile one lane group at a time: group g is lanes 8 g .. 8 g + 7
// of the tile, and a slot holds one sub-slice (those 8 samples of one slice, all W features,
// 32 KB at W = 1,024). The lanes of a group add their samples in slice order exactly as the
// tile's lanes do; at the end of a group, the first three levels of the lane tree (pairs l, l ^ 1,
// l ^ 2, l ^ 4, within the group) give the group's sum, and the last two levels combine the four
// groups, (G0 + G1) + (G2 + G3): the same pairs as lane_tree, so the same bits.
//  - chain warp c owns slot c and takes the block's sub-slices c, c + C, ...: all 32 lanes load
//    the sub-slice (8 Q contiguous 16-byte vectors, a ring of D of them a lane, the next
//    sub-slice's first D while this one ends) and store them into the slot; lanes 0..7 run the
//    residual chains of their samples from the slot (four quads, weights from shared memory,
//    after each group of stores), then write r (+ b, - y) and arrive at FULL[slot];
//  - accumulating warp a, lane (e = lane / 8, l = lane % 8) owns lane l of quads 4 (a + A c) + e
//    (one warp load is 512 contiguous bytes): waits at FULL, adds r * x (and warp 0's lanes 0..7
//    the bias and loss terms), arrives at EMPTY, and at the end of each group writes its sums.
// Dynamic shared memory: C slots of 8 Q vectors, the weights (Q vectors), the group sums (2 x 4 Q
// and 4 doubles), C * 8 residuals.
// ---------------------------------------------------------------------------------------------
#define GROUP_LANES 8  // samples of a sub-slice: lanes 8 g .. 8 g + 7 of a slice

// Index of feature j of sample gi in the octet layout: slice gi / 32 as [4 groups][w / 4][8][4]
// (w = d rounded up to 128; four features of a sample in one 16-byte vector, a group contiguous).
__device__ __forceinline__ i64 xo(int j, i64 gi, int w) {
  return (gi >> 5) * ((i64)w * 32) + ((gi & 31) >> 3) * ((i64)w * 8) + ((j >> 2) * 8 + (gi & 7)) * 4 + (j & 3);
}

// Index of feature j of sample gi in the quartet layout (the widetq plans, lane groups of 4):
// slice gi / 32 as [8 groups][w / 4][4][4]; the octet layout's formula with groups of 4 lanes.
__device__ __forceinline__ i64 xo4(int j, i64 gi, int w) {
  return (gi >> 5) * ((i64)w * 32) + ((gi & 31) >> 2) * ((i64)w * 4) + ((j >> 2) * 4 + (gi & 3)) * 4 + (j & 3);
}

// The first levels of lane_tree over a lane group of GL lanes (8: l ^ 1, l ^ 2, l ^ 4; 4: l ^ 1,
// l ^ 2): the sum of the group's lanes, in every lane of it.
template <int GL = 8>
__device__ __forceinline__ double group_tree(double v) {
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 1));
  if (GL == 4) return __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 2));
  v = __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 2));
  return __dadd_rn(v, __shfl_xor_sync(0xffffffffu, v, 4));
}

// The last two levels of lane_tree over the four groups of a tile, one group at a time: g01
// holds G0, then G0 + G1; g2 holds G2; group 3 writes (G0 + G1) + (G2 + G3) to dst.
__device__ __forceinline__ void groups_combine(double& g01, double& g2, int g, double v, double* dst) {
  if (g == 0) g01 = v;
  else if (g == 1) g01 = __dadd_rn(g01, v);
  else if (g == 2) g2 = v;
  else *dst = __dadd_rn(g01, __dadd_rn(g2, v));
}

// The last three levels of lane_tree over the eight quartets of a tile (lane groups of 4), one
// group at a time: ((G0 + G1) + (G2 + G3)) + ((G4 + G5) + (G6 + G7)), a stack of three partial
// sums: p0 holds G0, G0 + G1, then (G0 + G1) + (G2 + G3); p1 holds G2, then G4, G4 + G5; p2 G6;
// group 7 writes the tile's sum to dst. The same pairs as lane_tree (levels l ^ 4, l ^ 8, l ^ 16).
__device__ __forceinline__ void quartets_combine(double& p0, double& p1, double& p2, int g, double v, double* dst) {
  switch (g) {
    case 0: p0 = v; break;
    case 1: p0 = __dadd_rn(p0, v); break;
    case 2: p1 = v; break;
    case 3: p0 = __dadd_rn(p0, __dadd_rn(p1, v)); break;
    case 4: p1 = v; break;
    case 5: p1 = __dadd_rn(p1, v); break;
    case 6: p2 = v; break;
    default: *dst = __dadd_rn(p0, __dadd_rn(p1, __dadd_rn(p2, v)));
  }
}

// Where sub-slice k of a block lies: tile t (its i-th), group g, slice s of the tile, the tile's
// slices (per) and samples (cnt). A block's tiles are b, b + G, ...; each tile's sub-slices go
// group by group, 4 * per of them (per = 32 but in the batch's last tile).
struct SubSlice {
  int t, g, s, per, cnt;
};
// GL: lanes of a group (8: the octet layout, 4 groups a tile; 4: the quartet layout, 8 groups).
// bx of G: the block's place among those that share the tiles (a cluster's, for widec).
template <int GL = 8>
__device__ __forceinline__ SubSlice sub_slice(int k, int myTiles, int lastPer, int len, int bx, int G) {
  constexpr int SH = GL == 8 ? 7 : 8;  // log2 of the sub-slices of a whole tile (groups x 32 slices)
  SubSlice a;
  const int i = k >> SH;
  a.t = bx + i * G;
  a.per = i == myTiles - 1 ? lastPer : SLICES;
  const int r = k - (i << SH);
  a.g = r / a.per;
  a.s = r - a.g * a.per;
  a.cnt = min(TILE, len - a.t * TILE);
  return a;
}
template <int GL = 8>
__device__ __forceinline__ SubSlice sub_slice(int k, int myTiles, int lastPer, int len) {
  return sub_slice<GL>(k, myTiles, lastPer, len, blockIdx.x, gridDim.x);
}

// The residual chain's terms of one quad, weights w (features 4 q .. 4 q + 3), in feature order.
__device__ __forceinline__ float quad_terms_w(float r, float4 w, float4 v) {
  r = __fadd_rn(r, __fmul_rn(w.x, v.x));
  r = __fadd_rn(r, __fmul_rn(w.y, v.y));
  r = __fadd_rn(r, __fmul_rn(w.z, v.z));
  return __fadd_rn(r, __fmul_rn(w.w, v.w));
}

// The accumulating warps of the wide kernels (wide_body, wide2_body): warp a, lane (e = lane / 8,
// l = lane % 8) owns lane l of quads 4 (a + A c) + e. Every sub-slice in order, from slot k % S
// (S = C TS slots; chain warp c fills the TS slots of tasks c, c + C, ..., task m being
// sub-slices m TS .. m TS + TS - 1): wait at FULL[task] (barrier 1 + m % C) at a task's first
// sub-slice, add r * x (and warp 0's lanes 0..7 the bias and loss terms), arrive at EMPTY[task]
// (barrier 1 + C + m % C) after its last, and at the end of each group combine the group sums.
template <int Q, int C, int A, int TS>
__device__ __forceinline__ void wide_accumulate(const float4* slots, const float* rs, double* gs, double* gbl,
                                                int d, int len, double* __restrict__ out, int tiles, int a,
                                                int myTiles, int lastPer, int total) {
  constexpr int NB = 32 * (A + 1);  // threads at each slot barrier
  constexpr int QA = Q / (4 * A);    // quads of an accumulating thread
  constexpr int S = C * TS;
  const int lane = threadIdx.x & 31;
  const int e = lane >> 3;
  const int l = lane & 7;
  const int tasks = (total + TS - 1) / TS;
  double acc[4 * QA];
#pragma unroll
  for (int i = 0; i < 4 * QA; ++i) acc[i] = 0.0;
  double accb = 0.0, accl = 0.0;
  for (int k = 0; k < total; ++k) {
    const int s = k % S;
    const int m = k / TS;
    const int ct = m % C;  // the chain warp of task m
    const SubSlice at = sub_slice(k, myTiles, lastPer, len);
    if (k % TS == 0) named_bar_sync(1 + ct, NB);
    if (at.s * LANES + at.g * GROUP_LANES + l < at.cnt) {
      const float rl = rs[s * GROUP_LANES + l];
      const float4* sl = slots + s * 8 * Q + lane;
#pragma unroll
      for (int c = 0; c < QA; ++c) {
        const float4 xv = sl[32 * (a + A * c)];
        acc[4 * c] = __dadd_rn(acc[4 * c], (double)__fmul_rn(rl, xv.x));
        acc[4 * c + 1] = __dadd_rn(acc[4 * c + 1], (double)__fmul_rn(rl, xv.y));
        acc[4 * c + 2] = __dadd_rn(acc[4 * c + 2], (double)__fmul_rn(rl, xv.z));
        acc[4 * c + 3] = __dadd_rn(acc[4 * c + 3], (double)__fmul_rn(rl, xv.w));
      }
      if (a == 0 && e == 0) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    // the task's slots free for task m + C
    if ((k % TS == TS - 1 || k == total - 1) && m + C < tasks) named_bar_arrive(1 + C + ct, NB);
    if (at.s == at.per - 1) {
      // end of group at.g of tile at.t: the group's sums, combined with the tile's other groups
#pragma unroll
      for (int i = 0; i < 4 * QA; ++i) {
        const double v = group_tree(acc[i]);
        const int j = 4 * (4 * (a + A * (i >> 2)) + e) + (i & 3);
        if (l == 0 && j < d) groups_combine(gs[j], gs[4 * Q + j], at.g, v, out + (i64)j * tiles + at.t);
        acc[i] = 0.0;
      }
      if (a == 0) {
        const double vb = group_tree(accb);
        const double vl = group_tree(accl);
        if (lane == 0) {
          groups_combine(gbl[0], gbl[1], at.g, vb, out + (i64)d * tiles + at.t);
          groups_combine(gbl[2], gbl[3], at.g, vl, out + (i64)(d + 1) * tiles + at.t);
        }
        accb = 0.0;
        accl = 0.0;
      }
    }
  }
}

// LAG (the widep kernels): the chain lanes load the quads and weights of group i from the slot
// before they add the terms of group i - 1 (kept in registers), so that the shared-memory
// latency overlaps the additions; the same terms in the same order.
// ALL (the widea kernels): every lane of a chain warp runs a chain, lane l that of sample l % 8
// (four identical copies; only lanes 0..7 write r), so that the chain is not a divergent branch.
template <int Q, int C, int A, int D, bool LAG = false, bool ALL = false>
__device__ __forceinline__ void wide_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                          int len, const float* __restrict__ params, int bias,
                                          double* __restrict__ out, int tiles) {
  static_assert(2 * C < 16, "barriers 1 .. 2 C");
  static_assert(Q % (4 * A) == 0 && (Q / 4) % D == 0 && D <= Q / 4, "whole quads per thread and ring");
  constexpr int NB = 32 * (A + 1);  // threads at each slot barrier
  extern __shared__ float4 sm4[];
  float4* slots = sm4;                                // C slots of 8 Q vectors
  float4* ws4 = slots + C * 8 * Q;                    // w32 in quads, zeros past d
  double* gs = reinterpret_cast<double*>(ws4 + Q);    // 2 x 4 Q: G0 (+ G1), G2 of each feature
  double* gbl = gs + 8 * Q;                           // the same for the bias and the loss sums
  float* rs = reinterpret_cast<float*>(gbl + 4);      // C * 8 residuals
  float* wsf = reinterpret_cast<float*>(ws4);
  for (int j = threadIdx.x; j < 4 * Q; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int G = gridDim.x;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / G + 1 : 0;
  if (myTiles == 0) return;
  const int lastPer = (min(TILE, len - (blockIdx.x + (myTiles - 1) * G) * TILE) + LANES - 1) / LANES;
  const int total = (myTiles - 1) * 4 * SLICES + 4 * lastPer;  // sub-slices of this block

  if (w < C) {
    // Chain warp w: slot w, sub-slices w, w + C, ... The loads sit at fixed offsets and outside
    // branches (see spec_body); after the last sub-slice the ring re-reads the current one.
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float* ys = y + start;
    int k = w;
    if (k >= total) return;
    const auto src_of = [&](const SubSlice& a) {
      return x4 + (((start + (i64)a.t * TILE) >> 5) + a.s) * (32 * Q) + a.g * (8 * Q) + lane;
    };
    const auto y_of = [&](const SubSlice& a, bool more) {
      const int ks = a.s * LANES + a.g * GROUP_LANES + lane;  // tile-relative sample
      const bool ok = more && lane < GROUP_LANES && ks < a.cnt;
      const float v = ys[ok ? a.t * TILE + ks : 0];
      return ok ? v : 0.0f;
    };
    SubSlice at = sub_slice(k, myTiles, lastPer, len);
    const float4* src = src_of(at);
    float yv = y_of(at, true);
    float4 buf[D];
#pragma unroll
    for (int e = 0; e < D; ++e) buf[e] = src[32 * e];
    float4* slot = slots + w * 8 * Q + lane;  // this lane's vectors: slot[32 i]
    for (; k < total; k += C) {
      const int kn = k + C;
      const bool more = kn < total;
      const SubSlice an = more ? sub_slice(kn, myTiles, lastPer, len) : at;
      const float4* srcn = more ? src_of(an) : src;
      const float yn = y_of(an, more);
      if (k >= C) named_bar_sync(1 + C + w, NB);  // the accumulators are done with sub-slice k - C
      float r = 0.0f;
      float4 px[LAG ? 4 : 1], pw[LAG ? 4 : 1];  // LAG: the quads and weights of group i - 1
#pragma unroll
      for (int i = 0; i < Q / 4 + (LAG ? 1 : 0); ++i) {
        const int e = i % D;
        if (i < Q / 4) {
          slot[32 * i] = buf[e];
          __syncwarp();
        }
        if (ALL || lane < GROUP_LANES) {
          const float4* q4 = slot + 32 * i - lane;  // quads 4 i .. 4 i + 3 of the 8 samples
          const int l8 = lane & (GROUP_LANES - 1);
          if (LAG) {
            float4 nx[4], nw[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
              if (i < Q / 4) {
                nx[u] = q4[8 * u + l8];
                nw[u] = ws4[4 * i + u];
              }
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) {
              if (i > 0) r = quad_terms_w(r, pw[u], px[u]);
              px[u] = nx[u];
              pw[u] = nw[u];
            }
          } else {
#pragma unroll
            for (int u = 0; u < 4; ++u) r = quad_terms_w(r, ws4[4 * i + u], q4[8 * u + l8]);
          }
        }
        if (i < Q / 4) buf[e] = i + D < Q / 4 ? src[32 * (i + D)] : srcn[32 * (i + D - Q / 4)];
      }
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, yv);
      if (lane < GROUP_LANES) rs[w * GROUP_LANES + lane] = r;
      named_bar_arrive(1 + w, NB);  // slot w holds sub-slice k and its residuals
      at = an;
      src = srcn;
      yv = yn;
    }
    return;
  }

  // Accumulating warps: every sub-slice in order.
  wide_accumulate<Q, C, A, 1>(slots, rs, gs, gbl, d, len, out, tiles, w - C, myTiles, lastPer, total);
}

// Parameters: those of the other kernels (the weights are read from params into shared memory).
// One shape per slice width 4 Q (384 .. 1,024 features, steps of 128): 6 chain warps, 8
// accumulating warps, a ring of D vectors a chain lane (D divides Q / 4); LAG: see wide_body.
#define WIDE_KERNEL(NAME, Q, D, LAG)                                                               \
  extern "C" __global__ void __launch_bounds__(32 * 14, 1) NAME(SMALL_ARGS, const float* __restrict__ unused) { \
    wide_body<Q, 6, 8, D, LAG>(x, y, d, start, len, params, bias, out, tiles);                     \
  }
#define WIDEA_KERNEL(NAME, Q, D)                                                                   \
  extern "C" __global__ void __launch_bounds__(32 * 14, 1) NAME(SMALL_ARGS, const float* __restrict__ unused) { \
    wide_body<Q, 6, 8, D, false, true>(x, y, d, start, len, params, bias, out, tiles);             \
  }

// ---------------------------------------------------------------------------------------------
// Wide d, more chains a warp (the wide2 kernels; 256 < d <= 4 Q <= 1,024, the octet layout and
// the accumulating warps of wide_body, wide_accumulate): chain warp c owns TS slots (TS = 1, 2 or
// 4 sub-slices) and takes tasks c, c + C, ... of TS consecutive sub-slices (in the accumulating
// order), so that 8 TS of its lanes run chains at once, and the block holds C TS slots where
// shared memory allows (at W = 384, 16 slots of 12 KB: 128 chains, where wide_body runs 48).
// Per group i of 16 features, all 32 lanes store the TS sub-slices' quads 4 i .. 4 i + 3 (16-byte
// vectors from a ring of D groups a sub-slice in registers, loaded D groups ahead), then lane
// (h = lane / 8 mod TS, l = lane % 8) adds the terms of sample l of sub-slice h from the slot in
// feature order (lanes past 8 TS repeat lanes below, so that the chain is not a branch), then
// loads group i + D. After the last group, r (+ b, - y) of each sample goes into the task's
// residuals and the warp arrives at FULL[c]; before a task's first store it waits at EMPTY[c].
// Same terms in the same order as wide_body and the reference: the same bits.
// Dynamic shared memory: C TS slots of 8 Q vectors, the weights (Q vectors), the group sums (2 x 4 Q
// and 4 doubles), C TS * 8 residuals.
// ---------------------------------------------------------------------------------------------
template <int Q, int C, int A, int D, int TS>
__device__ __forceinline__ void wide2_body(const float* __restrict__ x, const float* __restrict__ y, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles) {
  static_assert(2 * C < 16, "barriers 1 .. 2 C");
  static_assert(TS == 1 || TS == 2 || TS == 4, "1, 2 or 4 sub-slices a task");
  static_assert(Q % (4 * A) == 0 && (Q / 4) % D == 0 && D <= Q / 4, "whole quads per thread and ring");
  constexpr int NB = 32 * (A + 1);
  constexpr int S = C * TS;
  constexpr int G4 = Q / 4;  // groups of four quads a sub-slice
  extern __shared__ float4 sm4[];
  float4* slots = sm4;                                // S slots of 8 Q vectors
  float4* ws4 = slots + S * 8 * Q;                    // w32 in quads, zeros past d
  double* gs = reinterpret_cast<double*>(ws4 + Q);    // 2 x 4 Q: G0 (+ G1), G2 of each feature
  double* gbl = gs + 8 * Q;                           // the same for the bias and the loss sums
  float* rs = reinterpret_cast<float*>(gbl + 4);      // S * 8 residuals
  float* wsf = reinterpret_cast<float*>(ws4);
  for (int j = threadIdx.x; j < 4 * Q; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int G = gridDim.x;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / G + 1 : 0;
  if (myTiles == 0) return;
  const int lastPer = (min(TILE, len - (blockIdx.x + (myTiles - 1) * G) * TILE) + LANES - 1) / LANES;
  const int total = (myTiles - 1) * 4 * SLICES + 4 * lastPer;  // sub-slices of this block
  const int tasks = (total + TS - 1) / TS;

  if (w < C) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float* ys = y + start;
    int m = w;
    if (m >= tasks) return;
    const int h = (lane >> 3) % TS;  // the sub-slice of the task whose chain this lane runs
    const int l = lane & 7;
    // sub-slice k of the block (clamped to the last one: a task past the end re-reads it into
    // its own slot, which the accumulating warps never read)
    const auto src_of = [&](int k) {
      const SubSlice a = sub_slice(min(k, total - 1), myTiles, lastPer, len);
      return x4 + (((start + (i64)a.t * TILE) >> 5) + a.s) * (32 * Q) + a.g * (8 * Q) + lane;
    };
    const auto y_of = [&](int k) {
      const SubSlice a = sub_slice(min(k, total - 1), myTiles, lastPer, len);
      const int ks = a.s * LANES + a.g * GROUP_LANES + l;  // tile-relative sample
      const bool ok = k < total && ks < a.cnt;
      const float v = ys[ok ? a.t * TILE + ks : 0];
      return ok ? v : 0.0f;
    };
    const float4* src[TS];
#pragma unroll
    for (int u = 0; u < TS; ++u) src[u] = src_of(m * TS + u);
    float yv = y_of(m * TS + h);
    float4 buf[D][TS];
#pragma unroll
    for (int e = 0; e < D; ++e)
#pragma unroll
      for (int u = 0; u < TS; ++u) buf[e][u] = src[u][32 * e];
    float4* const mine = slots + w * TS * 8 * Q + lane;             // slot u: mine[u * 8 Q + 32 i]
    const float4* const chain = slots + (w * TS + h) * 8 * Q + l;   // quad q of my sample: chain[8 q]
    for (; m < tasks; m += C) {
      const int mn = m + C;
      const bool more = mn < tasks;
      const float4* srcn[TS];
#pragma unroll
      for (int u = 0; u < TS; ++u) srcn[u] = more ? src_of(mn * TS + u) : src[u];
      const float yn = more ? y_of(mn * TS + h) : 0.0f;
      if (m >= C) named_bar_sync(1 + C + w, NB);  // the accumulators are done with task m - C
      float r = 0.0f;
#pragma unroll
      for (int i = 0; i < G4; ++i) {
        const int e = i % D;
#pragma unroll
        for (int u = 0; u < TS; ++u) mine[u * 8 * Q + 32 * i] = buf[e][u];
        __syncwarp();
#pragma unroll
        for (int u = 0; u < 4; ++u) r = quad_terms_w(r, ws4[4 * i + u], chain[8 * (4 * i + u)]);
#pragma unroll
        for (int u = 0; u < TS; ++u) buf[e][u] = i + D < G4 ? src[u][32 * (i + D)] : srcn[u][32 * (i + D - G4)];
      }
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, yv);
      if ((lane >> 3) < TS) rs[(w * TS + h) * GROUP_LANES + l] = r;
      __syncwarp();
      named_bar_arrive(1 + w, NB);  // the task's slots hold its sub-slices and residuals
#pragma unroll
      for (int u = 0; u < TS; ++u) src[u] = srcn[u];
      yv = yn;
    }
    return;
  }
  wide_accumulate<Q, C, A, TS>(slots, rs, gs, gbl, d, len, out, tiles, w - C, myTiles, lastPer, total);
}

// Parameters: those of the wide kernels. C chain warps of TS sub-slices each, 8 accumulating warps.
#define WIDE2_KERNEL(NAME, Q, C, D, TS)                                                            \
  extern "C" __global__ void __launch_bounds__(32 * (C + 8), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    wide2_body<Q, C, 8, D, TS>(x, y, d, start, len, params, bias, out, tiles);                     \
  }

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

// ---------------------------------------------------------------------------------------------
// Deep d, chains fed through shared memory (the deepx plan, d > 1,024). deepw's chains stall on
// their loads (ncu on an H200: ~40 cycles a feature, U = 32 features ahead in registers against a
// ~1,300-cycle load latency; one chain warp an SM then reads 0.85 TB/s), and registers cannot
// hold the ~300 features a chain must have in flight. Here 6 loader warps feed the block's one
// chain warp through a ring of 6 slots of 64 rows (a row: feature j of the slice's 32 samples,
// 128 bytes; 48 KB): loader p owns slot p and loads chunks p, p + 6, ... of the chain's stream
// (its slices, taken by ticket, each as ceil(d / 64) chunks of 64 features) into registers, waits until the slot is free (EMPTY, a named barrier of 64 threads),
// stores, and arrives on FULL; the chain warp waits on FULL, runs its 32 chains over the 64 rows
// from shared memory and arrives on EMPTY (only where a later chunk will fill the slot). So 384
// rows (48 KB) are in flight an SM and a chain runs near the binary32 addition's latency; the
// window between the read and the re-read stays deepw's (one chain warp an SM). A gradient warps
// as deepw's (fused_grad_tasks). Same operations in the same order as deep: the same bits.
// Dynamic shared memory: the weights, 4 ceil(d / 4) floats (zeros past d), the ring, 4 ints.
// ---------------------------------------------------------------------------------------------
#define DEEPX_SLOTS 6
#define DEEPX_ROWS 64

template <int F, int US, bool CS>
__device__ __forceinline__ void deepx_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles, float* __restrict__ rbuf) {
  extern __shared__ float4 sm4[];
  const float4* ws4 = sm4;
  float* wsf = reinterpret_cast<float*>(sm4);
  unsigned* tick = reinterpret_cast<unsigned*>(rbuf + n);
  const int dq = (d + 3) >> 2;
  float* ring = wsf + 4 * dq;  // [DEEPX_SLOTS][DEEPX_ROWS][32]
  // the slices of this block's stream, by ticket (4 entries: slice k in sl[k % 4], taken two
  // slices ahead by the loader of the first chunk of slice k - 2), so that slices go only to
  // running blocks and the kernel ends whatever number of blocks is resident
  volatile int* sl = reinterpret_cast<volatile int*>(ring + DEEPX_SLOTS * DEEPX_ROWS * 32);
  for (int j = threadIdx.x; j < 4 * dq; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  if (threadIdx.x == 0) {
    sl[0] = (int)atomicAdd(tick, 1u);
    sl[1] = (int)atomicAdd(tick, 1u);
  }
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  if (w > DEEPX_SLOTS) {
    fused_grad_tasks<F, US, CS>(x, d, start, len, out, tiles, rbuf, tick, 1u, lane);
    return;
  }
  const int slices = (len + LANES - 1) / LANES;
  const int cps = (d + DEEPX_ROWS - 1) / DEEPX_ROWS;  // chunks a slice
  // (a loader reads sl[k % 4] at least 2 cps - 12 > 0 chunks after it was written, the chain
  // arrives on EMPTY between the two: cps >= 17 at d > 1,024)
  if (w > 0) {
    // loader p = w - 1: slot p, chunks p, p + 6, ...
    const int p = w - 1;
    float* slot = ring + p * DEEPX_ROWS * 32 + lane;
    for (int q = p;; q += DEEPX_SLOTS) {
      const int ii = q / cps;
      const int m = q - ii * cps;
      const int s = sl[ii & 3];
      if (s >= slices) break;
      if (m == 0 && lane == 0) sl[(ii + 2) & 3] = (int)atomicAdd(tick, 1u);
      const int i = s * LANES + lane;
      const float* xp = sample_row(x, start + (i < len ? i : 0), d);  // past the batch: sample 0
      float v[DEEPX_ROWS];
#pragma unroll
      for (int u = 0; u < DEEPX_ROWS; ++u) v[u] = xp[32 * min(DEEPX_ROWS * m + u, d - 1)];
      if (q >= DEEPX_SLOTS) named_bar_sync(2 + 2 * p, 64);  // EMPTY
#pragma unroll
      for (int u = 0; u < DEEPX_ROWS; ++u) slot[32 * u] = v[u];
      named_bar_arrive(1 + 2 * p, 64);  // FULL
    }
    return;
  }
  for (int ii = 0;; ++ii) {
    const int s = sl[ii & 3];
    if (s >= slices) return;
    float r = 0.0f;
    for (int m = 0; m < cps; ++m) {
      const int q = ii * cps + m;
      const int p = q % DEEPX_SLOTS;
      const float* slot = ring + p * DEEPX_ROWS * 32 + lane;
      const int j0 = DEEPX_ROWS * m;
      named_bar_sync(1 + 2 * p, 64);  // FULL
      if (j0 + DEEPX_ROWS <= d) {
#pragma unroll
        for (int u = 0; u < DEEPX_ROWS; u += 4) {
          const float4 wq = ws4[(j0 + u) >> 2];
          r = __fadd_rn(r, __fmul_rn(wq.x, slot[32 * u]));
          r = __fadd_rn(r, __fmul_rn(wq.y, slot[32 * (u + 1)]));
          r = __fadd_rn(r, __fmul_rn(wq.z, slot[32 * (u + 2)]));
          r = __fadd_rn(r, __fmul_rn(wq.w, slot[32 * (u + 3)]));
        }
      } else {
        for (int u = 0; u < d - j0; ++u) r = __fadd_rn(r, __fmul_rn(wsf[j0 + u], slot[32 * u]));
      }
      if (sl[((q + DEEPX_SLOTS) / cps) & 3] < slices) named_bar_arrive(2 + 2 * p, 64);  // EMPTY, if refilled
    }
    const int i = s * LANES + lane;
    if (bias) r = __fadd_rn(r, b);
    if (i < len) {
      rbuf[i] = __fsub_rn(r, y[start + i]);
      __threadfence();
    }
    __syncwarp();
    if (lane == 0) atomicAdd(tick + 2 + (s >> 5), 1u);  // slice s is in tile s / 32
  }
}

// Parameters: deepf's. One chain warp, DEEPX_SLOTS loader warps, A gradient warps of F features
// and US slices ahead, CS: the re-read evict-first.
#define DEEPX_KERNEL(NAME, A, F, US, CS)                                                           \
  extern "C" __global__ void __launch_bounds__(32 * (1 + DEEPX_SLOTS + A), 1) NAME(SMALL_ARGS, float* __restrict__ rbuf) { \
    deepx_body<F, US, CS>(x, y, n, d, start, len, params, bias, out, tiles, rbuf);                \
  }
