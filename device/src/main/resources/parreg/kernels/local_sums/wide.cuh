#pragma once

// parreg local sums: the kernel bodies of wide and widea (the octet layout, warp-specialised) and
// the octet helpers widet builds on. local_sums.cuh includes every family in order; common.cuh
// holds the layout and the build flags.

#include "small.cuh"
#include "spec.cuh"

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
