#pragma once

// parreg local sums: the kernel bodies of split (a tile's features split over a team of warps).
// local_sums.cuh includes every family in order; common.cuh holds the layout and the build flags.

#include "small.cuh"
#include "spec.cuh"

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
