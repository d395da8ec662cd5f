#pragma once

// parreg local sums: the kernel bodies of specp (spec's block on the plain slice layout).
// local_sums.cuh includes every family in order; common.cuh holds the layout and the build flags.

#include "small.cuh"
#include "spec.cuh"

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
