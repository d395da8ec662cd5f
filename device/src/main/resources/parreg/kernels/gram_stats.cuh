// The exact solver's statistics pass on the card, order gram-tile256-dd/v1 (parreg.solver.GramOrder,
// docs/SOLVER.md section 1), binary32 rule: for the m = d + 2 columns z = [x, y, 1] and each entry
// (j, k), j <= k, of the packed upper triangle, one binary64 accumulator per tile of 256 samples,
// acc = fma(z_j[i], z_k[i], acc) in sample order from +0.0; then the tiles' values (acc, +0.0) are
// combined in double-double (AccurateDWPlusDW, parreg.solver.DoubleDouble.add) by the level-by-level
// tree, an odd last element carried up.
//
// gram_tiles_body: a block per (patch of entries, aligned block of 2^L tiles). A patch is a set of
// 4 x 4 cells of entries, one cell per thread in registers: a diagonal patch the R(R+1)/2 cells of
// the triangle over R cell rows, an off-diagonal one R x C cells. Each 32-sample slice of the
// patch's columns is converted to binary64 into shared memory (two buffers: the next slice loads
// while the current one is multiplied), and every thread runs its 16 fused multiply-adds a sample,
// samples in order. At the end of a tile the cell's values go onto a binary counter (levels in
// local memory): two equal neighbours merge, left operand first, exactly where the level-by-level
// tree merges; at the end the counter folds from its smallest level up, which is how the tree
// finishes a partial run. The block's values (one double-double per entry) go to out.
// gram_tree_body: aligned groups of 2^G values per entry reduced by the same counter; launched
// until one value per entry remains. Both the block of tiles and the group are complete subtrees
// (their last ones the same partial subtree the tree gives), so the bits are the tree's.
//
// Padding: a slice's missing samples (past n) are zeros in every column, the constant column
// included, so they add fma(0, 0, acc) = acc + 0: acc starts at +0.0 and a round-to-nearest sum is
// -0.0 only when both addends are, so acc is never -0.0 and adding +0.0 changes no bit. Cells past
// the m columns or below the diagonal are computed (or skipped) and never written.
//
// Every operation is an explicit round-to-nearest intrinsic (compiled -fmad=false as well); the
// host emulation (scripts/check/kernel-emu/gram.cpp) compiles this file with g++ and checks it bit
// for bit against the order written literally.
#pragma once

#ifdef PARREG_HOST_EMU
#include <cmath>
struct double2 { double x, y; };
inline double gs_fma(double a, double b, double c) { volatile double r = std::fma(a, b, c); return r; }
inline double gs_add(double a, double b) { volatile double r = a + b; return r; }
inline double gs_sub(double a, double b) { volatile double r = a - b; return r; }
struct int4s { int x, y, z, w; };
typedef int4s gs_int4;
#define GS_RESTRICT
#else
__device__ __forceinline__ double gs_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double gs_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double gs_sub(double a, double b) { return __dsub_rn(a, b); }
typedef int4 gs_int4;
#define GS_RESTRICT __restrict__
#endif

// Levels of a counter: blocks of up to 2^(GS_LEVELS - 1) tiles (or values).
#define GS_LEVELS 13
// Samples a slice, slices a tile (GramOrder.TILE = 256).
#define GS_SLICE 32
#define GS_TILE_SLICES 8
// Column quads a thread stages a slice, at most (the host sizes the block so that it suffices).
#define GS_UNITS 4

// (zh, zl) = (xh, xl) + (yh, yl): AccurateDWPlusDW, operation for operation as DoubleDouble.add.
__device__ __forceinline__ void gs_dd_add(double xh, double xl, double yh, double yl, double& zh, double& zl) {
  const double sh = gs_add(xh, yh);
  const double sb = gs_sub(sh, xh);
  const double sl = gs_add(gs_sub(xh, gs_sub(sh, sb)), gs_sub(yh, sb));
  const double th = gs_add(xl, yl);
  const double tb = gs_sub(th, xl);
  const double tl = gs_add(gs_sub(xl, gs_sub(th, tb)), gs_sub(yl, tb));
  const double c = gs_add(sl, th);
  const double vh = gs_add(sh, c);
  const double vl = gs_sub(c, gs_sub(vh, sh));
  const double w = gs_add(tl, vl);
  const double h = gs_add(vh, w);
  zl = gs_sub(w, gs_sub(h, vh));
  zh = h;
}

// Packed index of entry (j, k), j <= k < m: GramOrder.index.
__device__ __forceinline__ long long gs_index(int j, int k, int m) {
  return (long long)j * m - (long long)j * (j - 1) / 2 + (k - j);
}

// The binary counter of one thread's V double-double values (levels in local memory).
template <int V>
struct GsCounter {
  double lh[GS_LEVELS][V];
  double ll[GS_LEVELS][V];
  unsigned full;

  __device__ __forceinline__ void init() { full = 0u; }

  // Pushes (th, tl): merges with each full level from the bottom, left operand first.
  __device__ __forceinline__ void push(double* th, double* tl) {
    int lv = 0;
    while ((full >> lv) & 1u) {
#pragma unroll
      for (int e = 0; e < V; ++e) gs_dd_add(lh[lv][e], ll[lv][e], th[e], tl[e], th[e], tl[e]);
      full &= ~(1u << lv);
      ++lv;
    }
#pragma unroll
    for (int e = 0; e < V; ++e) {
      lh[lv][e] = th[e];
      ll[lv][e] = tl[e];
    }
    full |= 1u << lv;
  }

  // Folds the levels from the smallest (rightmost) up: each larger one is the left operand.
  __device__ __forceinline__ void fold(double* rh, double* rl) {
    bool have = false;
    for (int lv = 0; lv < GS_LEVELS; ++lv) {
      if (!((full >> lv) & 1u)) continue;
      if (!have) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          rh[e] = lh[lv][e];
          rl[e] = ll[lv][e];
        }
        have = true;
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) gs_dd_add(lh[lv][e], ll[lv][e], rh[e], rl[e], rh[e], rl[e]);
      }
    }
    if (!have) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        rh[e] = 0.0;
        rl[e] = 0.0;
      }
    }
  }
};

// Column c (0 <= c < 4 * quads) of sample l of slice sl, binary32: a feature from the resident
// layout (ResidentLayout: a slice of sf features, quads of 4 features when qlog = 2, lane groups of
// 2^glog samples), the label, the constant 1 (zero past n), or zero (padding columns).
__device__ __forceinline__ float gs_value(const float* GS_RESTRICT x, const float* GS_RESTRICT y, long long n, int d,
                                          int sf, int qlog, int glog, long long sl, int l, int c) {
  const long long i = sl * GS_SLICE + l;
  if (c < d) {
    const int G = 1 << glog;
    const int Q = 1 << qlog;
    const long long off = sl * (long long)(GS_SLICE * sf) + (long long)(l >> glog) * sf * G + (c >> qlog) * Q * G +
                          (l & (G - 1)) * Q + (c & (Q - 1));
    return x[off];
  }
  if (i >= n) return 0.0f;
  if (c == d) return y[i];
  if (c == d + 1) return 1.0f;
  return 0.0f;
}

// One slice's column quads into registers: unit u = threadIdx.x + blockDim.x * r is quad u >> 5
// of the patch's list (the row quads, then the column quads of an off-diagonal patch), sample
// u & 31, so that consecutive threads read consecutive samples.
__device__ __forceinline__ void gs_stage(float (*v)[4], const float* GS_RESTRICT x, const float* GS_RESTRICT y,
                                         long long n, int d, int sf, int qlog, int glog, long long sl, int r0, int qa,
                                         int c0, int units) {
#pragma unroll
  for (int r = 0; r < GS_UNITS; ++r) {
    const int u = threadIdx.x + blockDim.x * r;
    if (u >= units) break;
    const int qi = u >> 5;
    const int l = u & 31;
    const int gq = qi < qa ? r0 + qi : c0 + qi - qa;
    const int c = 4 * gq;
    if (qlog == 2 && c + 3 < d) {
      const int G = 1 << glog;
      const long long off =
          sl * (long long)(GS_SLICE * sf) + (long long)(l >> glog) * sf * G + gq * 4 * G + (l & (G - 1)) * 4;
#ifdef PARREG_HOST_EMU
      v[r][0] = x[off];
      v[r][1] = x[off + 1];
      v[r][2] = x[off + 2];
      v[r][3] = x[off + 3];
#else
      const float4 q = __ldg(reinterpret_cast<const float4*>(x + off));
      v[r][0] = q.x;
      v[r][1] = q.y;
      v[r][2] = q.z;
      v[r][3] = q.w;
#endif
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) v[r][e] = gs_value(x, y, n, d, sf, qlog, glog, sl, l, c + e);
    }
  }
}

// The staged quads into a shared buffer, as binary64: sample l's row quads at buf[l * sa ...], the
// column quads at buf[32 * sa + l * sb ...]; within a sample's row of 4R values, cell ci's columns
// 0, 1 at 2ci and 2, 3 at 2R + 2ci (a thread's two 16-byte reads are conflict-free across cells).
__device__ __forceinline__ void gs_store(double* buf, float (*v)[4], int qa, int qb, int sa, int sb, int units) {
#pragma unroll
  for (int r = 0; r < GS_UNITS; ++r) {
    const int u = threadIdx.x + blockDim.x * r;
    if (u >= units) break;
    const int qi = u >> 5;
    const int l = u & 31;
    double* row;
    int cell, cells;
    if (qi < qa) {
      row = buf + l * sa;
      cell = qi;
      cells = qa;
    } else {
      row = buf + GS_SLICE * sa + l * sb;
      cell = qi - qa;
      cells = qb;
    }
    double2 lo2, hi2;
    lo2.x = (double)v[r][0];
    lo2.y = (double)v[r][1];
    hi2.x = (double)v[r][2];
    hi2.y = (double)v[r][3];
    *reinterpret_cast<double2*>(row + 2 * cell) = lo2;
    *reinterpret_cast<double2*>(row + 2 * cells + 2 * cell) = hi2;
  }
}

// One block: patch blockIdx.x of patches[] (x: first cell row, y: first cell column, z: cell
// rows R, w: cell columns C; x == y a diagonal patch, C == R), tiles [q 2^L, min(tiles, (q + 1)
// 2^L)) for q = blockIdx.y. Writes the block's value of each entry of the patch to outHi / outLo
// at [q * entries + index]. Shared memory: 2 * 32 * (sa + sb) doubles, sa = 4R + 2, sb = 4C + 2
// (0 for a diagonal patch).
__device__ __forceinline__ void gram_tiles_body(const float* GS_RESTRICT x, const float* GS_RESTRICT y, long long n,
                                                int d, int sf, int qlog, int glog, const gs_int4* GS_RESTRICT patches,
                                                int blockLog, int tiles, double* GS_RESTRICT outHi,
                                                double* GS_RESTRICT outLo, double* smem) {
  const gs_int4 p = patches[blockIdx.x];
  const bool diag = p.x == p.y;
  const int R = p.z;
  const int C = p.w;
  const int m = d + 2;
  const long long entries = (long long)m * (m + 1) / 2;
  // this thread's cell (ci, ck) within the patch
  int ci = 0, ck = 0;
  bool active;
  const int t = threadIdx.x;
  if (diag) {
    int rem = t, i = 0;
    while (i < R && rem >= R - i) {
      rem -= R - i;
      ++i;
    }
    ci = i;
    ck = i + rem;
    active = i < R;
  } else if (R == 16 && C == 16) {
    // warps of 4 x 8 cells: a sample's 16-byte reads touch 4 row cells and 8 column cells
    const int w = t >> 5, l = t & 31;
    ci = (w >> 1) * 4 + (l >> 3);
    ck = (w & 1) * 8 + (l & 7);
    active = w < 8;
  } else {
    ci = t / C;
    ck = t % C;
    active = ci < R;
  }
  const int qa = R;
  const int qb = diag ? 0 : C;
  const int sa = 4 * R + 2;
  const int sb = diag ? 0 : 4 * C + 2;
  const int units = GS_SLICE * (qa + qb);
  const int bufDoubles = GS_SLICE * (sa + sb);
  const long long nslices = (n + GS_SLICE - 1) / GS_SLICE;
  const long long t0 = (long long)blockIdx.y << blockLog;
  const long long t1 = t0 + (1LL << blockLog) < tiles ? t0 + (1LL << blockLog) : tiles;
  const long long s0 = t0 * GS_TILE_SLICES;
  const long long s1 = t1 * GS_TILE_SLICES < nslices ? t1 * GS_TILE_SLICES : nslices;
  // row and column operand offsets of this thread in a buffer
  const int aOff = 2 * ci;
  const int bBase = diag ? 0 : GS_SLICE * sa;
  const int bStride = diag ? sa : sb;
  const int bOff = 2 * ck;
  const int bHalf = diag ? 2 * R : 2 * C;

  GsCounter<16> counter;
  counter.init();
  double acc[16];
  float v[GS_UNITS][4];
  gs_stage(v, x, y, n, d, sf, qlog, glog, s0, p.x, qa, p.y, units);
  gs_store(smem, v, qa, qb, sa, sb, units);
  __syncthreads();
  for (long long s = s0; s < s1; ++s) {
    const int k = (int)((s - s0) & 1);
    const double* buf = smem + k * bufDoubles;
    if (((s - s0) & (GS_TILE_SLICES - 1)) == 0) {
#pragma unroll
      for (int e = 0; e < 16; ++e) acc[e] = +0.0;
    }
    if (s + 1 < s1) gs_stage(v, x, y, n, d, sf, qlog, glog, s + 1, p.x, qa, p.y, units);
    if (active) {
      const double* A = buf + aOff;
      const double* B = buf + bBase + bOff;
#pragma unroll 4
      for (int l = 0; l < GS_SLICE; ++l) {
        const double2 a01 = *reinterpret_cast<const double2*>(A + l * sa);
        const double2 a23 = *reinterpret_cast<const double2*>(A + l * sa + 2 * R);
        const double2 b01 = *reinterpret_cast<const double2*>(B + l * bStride);
        const double2 b23 = *reinterpret_cast<const double2*>(B + l * bStride + bHalf);
        const double a[4] = {a01.x, a01.y, a23.x, a23.y};
        const double b[4] = {b01.x, b01.y, b23.x, b23.y};
#pragma unroll
        for (int rr = 0; rr < 4; ++rr)
#pragma unroll
          for (int cc = 0; cc < 4; ++cc) acc[4 * rr + cc] = gs_fma(a[rr], b[cc], acc[4 * rr + cc]);
      }
    }
    if (s + 1 < s1) gs_store(smem + (1 - k) * bufDoubles, v, qa, qb, sa, sb, units);
    if (active && (((s - s0) & (GS_TILE_SLICES - 1)) == GS_TILE_SLICES - 1 || s + 1 == s1)) {
      double tl[16];
#pragma unroll
      for (int e = 0; e < 16; ++e) tl[e] = +0.0;
      counter.push(acc, tl);
    }
    __syncthreads();
  }
  if (!active) return;
  double rh[16], rl[16];
  counter.fold(rh, rl);
  const long long base = (long long)blockIdx.y * entries;
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    const int j = 4 * (p.x + ci) + rr;
#pragma unroll
    for (int cc = 0; cc < 4; ++cc) {
      const int kk = 4 * (p.y + ck) + cc;
      if (j <= kk && kk < m) {
        const long long e = base + gs_index(j, kk, m);
        outHi[e] = rh[4 * rr + cc];
        outLo[e] = rl[4 * rr + cc];
      }
    }
  }
}

// Aligned groups of 2^groupLog values per entry: value q of entry e at [q * entries + e]; group g =
// blockIdx.y holds values [g 2^groupLog, min(count, (g + 1) 2^groupLog)), reduced by the counter
// into [g * entries + e] of dstHi / dstLo. A thread an entry.
__device__ __forceinline__ void gram_tree_body(const double* GS_RESTRICT srcHi, const double* GS_RESTRICT srcLo,
                                               double* GS_RESTRICT dstHi, double* GS_RESTRICT dstLo, int count,
                                               int groupLog, long long entries) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= entries) return;
  const long long q0 = (long long)blockIdx.y << groupLog;
  const long long q1 = q0 + (1LL << groupLog) < count ? q0 + (1LL << groupLog) : count;
  GsCounter<1> counter;
  counter.init();
  for (long long q = q0; q < q1; ++q) {
    double h = srcHi[q * entries + e];
    double l = srcLo[q * entries + e];
    counter.push(&h, &l);
  }
  double rh, rl;
  counter.fold(&rh, &rl);
  dstHi[(long long)blockIdx.y * entries + e] = rh;
  dstLo[(long long)blockIdx.y * entries + e] = rl;
}
