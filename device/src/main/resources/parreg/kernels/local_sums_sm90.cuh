#pragma once

// parreg local sums on CUDA, kernels for compute capability 9.0 and newer (Hopper: H100, H200):
// the bodies that need PTX of compute_90 (bulk asynchronous copies, cp.async.bulk, completing on
// shared-memory transaction barriers, mbarrier ... expect_tx). local_sums_sm90.cu instantiates
// them into a module of its own (scripts/build/gen-ptx.sh: -arch=compute_90), which CudaCard loads only
// on cards of compute capability 9.0 or newer; every other card runs local_sums.cu's kernels.
// Same build flags and the same explicit round-to-nearest intrinsics as local_sums.cuh, whose
// helpers (octet layout, sub_slice, quad_terms_w, group_tree, groups_combine) these bodies use.

#include "local_sums.cuh"

// ---------------------------------------------------------------------------------------------
// Wide d, the copy engine stages the slots (the widet kernels; 256 < d <= 4 Q <= 1,024, the
// octet layout and the accumulation order of wide_body / wide2_body, so the same bits).
//
// Why: in wide / wide2 / widea the chain warps load x into registers (a ring of D 16-byte
// vectors a lane) and store it into the slots; ncu on an H200 found them
// stalled on those global loads a third of the time (long scoreboard at the stores) and issuing
// only 16 % of their cycles, so each chain ran at ~18 cycles a feature where its additions need
// 4, and the 6 slots of 32 KB (d = 1,024) held too few chains for the read limit. Here no warp
// moves x: one thread (the producer warp's lane 0) copies each sub-slice (8 samples x W features,
// 32 W contiguous bytes of the octet layout) into its slot with one bulk copy, as soon as the slot
// is free, so the loads in flight are as many as the free slots and no register ring is needed.
//
// Sub-slice k of the block (sub_slice: tile by tile, each tile group by group, slice by slice)
// goes to slot k % S. Three transaction barriers a slot (mbarrier; phase of use k / S):
//  - FULL[s] (1 arrival + the copy's bytes): the producer's expect_tx and the copy;
//  - READY[s] (8 arrivals): the 8 lanes that ran the sub-slice's chains wrote their residuals;
//  - EMPTY[s] (A arrivals): each accumulating warp is done with the sub-slice.
// Chain warp c takes tasks c, c + C, ...; task m is sub-slices m TS .. m TS + TS - 1; lane
// (h = lane / 8 mod TS, l = lane % 8) runs the chain of sample l of sub-slice m TS + h from the
// slot, in feature order (lanes past 8 TS repeat lanes below, without writing), then writes r
// (+ b, - y) and arrives at READY. The accumulating warps take every sub-slice in order, as
// wide_accumulate does. Every wait is on a phase that cannot be overtaken (a slot is refilled
// only after its accumulation, which follows its chains), and every dependency points to an
// earlier sub-slice, so the pipeline cannot deadlock for any C, TS <= S.
// Dynamic shared memory: S slots of 8 Q vectors, the weights (Q vectors), the group sums (2 x 4 Q
// and 4 doubles), S * 8 residuals, 3 S barriers (8 bytes each).
// ---------------------------------------------------------------------------------------------

#ifndef PARREG_HOST_EMU  // scripts/check/kernel-emu/shim.h has its own
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Waits until the phase of parity `parity` of bar has completed (acquire).
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
// One 16-byte shared-memory load (ld.shared.v4.f32). From a plain float4 read of the slots and
// the weights nvcc emits four ld.shared.f32 in the chains (2,048 scalar shared loads a chain of
// 1,024 features), four
// times the load instructions and, with 2 sub-slices a warp, 12 shared-memory wavefronts a quad
// where 3 do. Volatile: kept after the FULL wait that precedes it (the loop has no other wait,
// so ptxas still schedules the loads ahead of the additions).
__device__ __forceinline__ float4 lds128(const float4* p) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(smem_addr(p)));
  return v;
}
// One bulk copy global -> this block's shared memory, completing on barrier bar.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// This block's dynamic shared memory (the emulation gives each block of a cluster its own).
__device__ __forceinline__ float4* cta_smem4() {
  extern __shared__ float4 sm4[];
  return sm4;
}
// Thread-block clusters (the widec kernels; PTX ISA 7.8, sm_90): this block's rank in its
// cluster, a barrier of all the cluster's threads, and a store / a transaction-barrier arrival
// into the shared memory of block `rank` of the cluster (mapa: the same offset in that block).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
}
__device__ __forceinline__ unsigned cluster_addr(const void* p, unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_addr(p)), "r"(rank));
  return a;
}
__device__ __forceinline__ void st_cluster(float* p, unsigned rank, float v) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(cluster_addr(p, rank)), "f"(v) : "memory");
}
// Release at cluster scope: the arriving thread's earlier stores (st_cluster) are visible to a
// thread of that block that then waits on the phase with mbar_wait_cluster (acquire).
__device__ __forceinline__ void mbar_arrive_cluster(unsigned long long* bar, unsigned rank) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr(bar, rank))
               : "memory");
}
__device__ __forceinline__ void mbar_wait_cluster(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
#else
inline float4 lds128(const float4* p) { return *p; }
#endif

// The residual chain of one sample over Q quads (weights w, the sample's quad q at x[GL q]) as a
// rolled loop of 2 RC quads an iteration, the loads of each half issued while the other half's
// additions run (two register buffers, no moves): the fully unrolled chain of widet at Q = 256
// is 2,562 instructions (41 KB), and ncu found its warps waiting for instruction fetch 18 % of
// their time in it; same operations in the same order, so the same bits.
template <int Q, int GL, int RC>
__device__ __forceinline__ float chain_rolled(float r, const float4* w, const float4* x) {
  static_assert(Q % (2 * RC) == 0, "whole iterations");
  float4 wa[RC], xa[RC], wb[RC], xb[RC];
#pragma unroll
  for (int i = 0; i < RC; ++i) {
    wa[i] = lds128(w + i);
    xa[i] = lds128(x + GL * i);
  }
#pragma unroll 1
  for (int q = 0; q < Q; q += 2 * RC) {
#pragma unroll
    for (int i = 0; i < RC; ++i) {
      wb[i] = lds128(w + q + RC + i);
      xb[i] = lds128(x + GL * (q + RC + i));
    }
#pragma unroll
    for (int i = 0; i < RC; ++i) r = quad_terms_w(r, wa[i], xa[i]);
    if (q + 2 * RC < Q) {
#pragma unroll
      for (int i = 0; i < RC; ++i) {
        wa[i] = lds128(w + q + 2 * RC + i);
        xa[i] = lds128(x + GL * (q + 2 * RC + i));
      }
    }
#pragma unroll
    for (int i = 0; i < RC; ++i) r = quad_terms_w(r, wb[i], xb[i]);
  }
  return r;
}

// One level of the group tree as a reduce-scatter: lanes l and l ^ m (bit = (l & m) != 0) add
// their N accumulators pairwise, lane bit 0 keeping the sums of [0, N / 2), lane bit 1 those of
// [N / 2, N): N / 2 shuffles where a butterfly (group_tree) takes N, and the same additions (the
// pairs are lane_tree's; IEEE addition commutes), so the same bits.
template <int N>
__device__ __forceinline__ void group_scatter(const double (&v)[N], double (&h)[N / 2], bool bit, int m) {
  static_assert(N % 2 == 0, "an even split");
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const double send = bit ? v[i] : v[i + N / 2];
    h[i] = __dadd_rn(bit ? v[i + N / 2] : v[i], __shfl_xor_sync(0xffffffffu, send, m));
  }
}

template <int Q, int C, int A, int TS, int S, bool LEAN = false, int GL = 8, int SP = 0, int NC = 1, int RC = 0,
          bool BFLY = false>
__device__ __forceinline__ void widet_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                           int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles,
                                           const float* __restrict__ wpad = nullptr) {
  // GL: lanes of a group, 8 (the octet layout) or 4 (the quartet layout, the widetq / widelq
  // plans: see the note after this body). QG: quads of a 32-lane warp load in the accumulating
  // warps (one lane group each); NGR: groups of a slice; LG: log2 GL.
  static_assert(GL == 8 || GL == 4, "lane groups of 8 or 4");
  // NC > 1: a cluster of NC blocks shares each sub-slice (the widec plans, see the note after this
  // body); block `rank` holds features [4 Q rank, 4 Q (rank + 1)) of the slice width 4 Q NC
  static_assert(NC == 1 || (GL == 8 && !LEAN && SP == 0), "clusters: the octet layout, widet's shape");
  static_assert(RC == 0 || !LEAN, "the rolled chain reads the weights from shared memory");
  constexpr int QG = 32 / GL;
  constexpr int NGR = LANES / GL;
  constexpr int LG = GL == 8 ? 3 : 2;
  static_assert(TS >= 1 && TS <= QG && TS <= S, "1 .. 32 / GL sub-slices a task, at most S");
  // A chain warp at task m waits on FULL of sub-slice k (slot k % S, phase k / S) by parity: that
  // wait passes at once, wrongly, while the slot's previous phase (sub-slice k - S) is still
  // incomplete. The warp has waited for every sub-slice of its task m - C, so k - S is among them
  // or earlier (the copies are issued in order) when m TS - S <= (m - C) TS + TS - 1, that is
  // S >= (C - 1) TS + 1 (the host emulation of a 3 x 2 shape at S = 3 hangs).
  static_assert(S >= (C - 1) * TS + 1, "a slot's previous phase is complete when a chain waits on it");
  static_assert(Q % (QG * A) == 0, "whole quads per accumulating thread");
  constexpr int QA = Q / (QG * A);  // quads of an accumulating thread
  constexpr unsigned BYTES = GL * Q * 16;
  // SP: vectors of padding after each slot (GL 4, the "p" shapes: 4, so that consecutive slots
  // start 64 bytes apart modulo 128 and the two sub-slices that a quarter-warp of chain lanes reads
  // at once, 4 lanes x 16 bytes each, fall in different banks instead of the same 16)
  constexpr int SST = GL * Q + SP;  // a slot's stride, vectors
  // GL 4: the group sums always in registers (three partials a feature, quartets_combine), so
  // no group sums in shared memory; LEAN then only says where the weights are
  constexpr bool GS_SHARED = GL == 8 && !LEAN;
  float4* slots = cta_smem4();                               // S slots of GL Q vectors (+ SP)
  float4* ws4 = slots + S * SST;                             // w32 in quads, zeros past d (not LEAN)
  double* gs = reinterpret_cast<double*>(ws4 + (LEAN ? 0 : Q));  // 2 x 4 Q: G0 (+ G1), G2 (GS_SHARED)
  double* gbl = gs + (GS_SHARED ? 8 * Q : 0);                // the same for the bias and the loss sums
  float* rs = reinterpret_cast<float*>(gbl + 4);             // S * GL residuals
  // LEAN: the weights from wpad (4 Q binary32 in global memory, zeros past d, read through the
  // read-only cache) and each tile's group sums in registers, so that a slot more fits
  const float4* wg4 = reinterpret_cast<const float4*>(wpad);
  float* hs = rs + S * GL;  // NC > 1: S * GL chain states handed on by block rank - 1
  unsigned long long* full = reinterpret_cast<unsigned long long*>(rs + S * GL * (NC > 1 ? 2 : 1));  // S FULL
  unsigned long long* ready = full + S;                                           // S READY
  unsigned long long* empty = ready + S;                                          // S EMPTY
  unsigned long long* hand = empty + S;  // NC > 1: S HAND (GL arrivals from block rank - 1)
  const int rank = NC > 1 ? (int)cluster_rank() : 0;
  const int f0 = 4 * Q * rank;  // this block's first feature
  float* wsf = reinterpret_cast<float*>(ws4);
  if (!LEAN)
    for (int j = threadIdx.x; j < 4 * Q; j += blockDim.x) wsf[j] = f0 + j < d ? params[f0 + j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full + s, 1);
      mbar_init(ready + s, GL);
      mbar_init(empty + s, A);
      if (NC > 1) mbar_init(hand + s, GL);
    }
    mbar_init_fence();
  }
  // NC > 1: every block's barriers initialised before any block arrives at them remotely
  if constexpr (NC > 1) cluster_sync();
  else __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  // the blocks of a cluster take the same tiles: cluster bx of G
  const int bx = NC > 1 ? (int)(blockIdx.x / NC) : (int)blockIdx.x;
  const int G = NC > 1 ? (int)(gridDim.x / NC) : (int)gridDim.x;
  const int myTiles = bx < tiles ? (tiles - 1 - bx) / G + 1 : 0;
  if (myTiles == 0) return;  // NC > 1: the whole cluster, before any remote access
  const int lastPer = (min(TILE, len - (bx + (myTiles - 1) * G) * TILE) + LANES - 1) / LANES;
  const int total = (myTiles - 1) * NGR * SLICES + NGR * lastPer;  // sub-slices of this block
  const float4* x4 = reinterpret_cast<const float4*>(x);

  if (w == C + A) {
    // Producer: sub-slice k into slot k % S once the accumulating warps are done with k - S.
    if (lane == 0) {
      for (int k = 0; k < total; ++k) {
        const int s = k % S;
        if (k >= S) mbar_wait(empty + s, ((k / S) - 1) & 1);
        const SubSlice a = sub_slice<GL>(k, myTiles, lastPer, len, bx, G);
        const float4* src = x4 + (((start + (i64)a.t * TILE) >> 5) + a.s) * (32 * Q * NC) + a.g * (GL * Q * NC) + rank * (GL * Q);
        mbar_expect_tx(full + s, BYTES);
        bulk_copy(slots + s * SST, src, BYTES, full + s);
      }
    }
    if constexpr (NC > 1) cluster_sync();
    return;
  }

  if (w < C) {
    const float* ys = y + start;
    const int tasks = (total + TS - 1) / TS;
    const int h = (lane >> LG) % TS;  // the sub-slice of the task whose chain this lane runs
    const int l = lane & (GL - 1);
    const bool writer = (lane >> LG) < TS;
    for (int m = w; m < tasks; m += C) {
      const int k = m * TS + h;  // this lane's sub-slice
      const bool live = k < total;
      float yv = 0.0f;
      if (live && rank == NC - 1) {
        const SubSlice a = sub_slice<GL>(k, myTiles, lastPer, len, bx, G);
        const int ks = a.s * LANES + a.g * GL + l;  // tile-relative sample
        if (ks < a.cnt) yv = ys[a.t * TILE + ks];
      }
#pragma unroll
      for (int u = 0; u < TS; ++u) {
        const int ku = m * TS + u;
        if (ku < total) mbar_wait(full + ku % S, (ku / S) & 1);
      }
      const int s = k % S;
      const float4* chain = slots + s * SST + l;  // quad q of my sample: chain[GL q]
      float r = 0.0f;
      if constexpr (NC > 1) {
        if (rank > 0) {
          // the chain so far (features below f0), from block rank - 1; HAND of sub-slice k - S
          // has completed, since FULL of k (waited above) follows the accumulation of k - S here
#pragma unroll
          for (int u = 0; u < TS; ++u) {
            const int ku = m * TS + u;
            if (ku < total) mbar_wait_cluster(hand + ku % S, (ku / S) & 1);
          }
          r = hs[s * GL + l];
        }
      }
      if constexpr (RC > 0) {
        r = chain_rolled<Q, GL, RC>(r, ws4, chain);
      } else {
#pragma unroll
        for (int q = 0; q < Q; ++q) r = quad_terms_w(r, LEAN ? __ldg(wg4 + q) : lds128(ws4 + q), lds128(chain + GL * q));
      }
      if (NC > 1 && rank < NC - 1) {
        // hand the chain on to block rank + 1
        if (writer && live) {
          st_cluster(hs + s * GL + l, rank + 1, r);
          mbar_arrive_cluster(hand + s, rank + 1);
        }
        continue;
      }
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, yv);
      if (writer && live) {
        // NC > 1: r to every other block first, then here: this block's accumulation of k (and
        // so its next copy into slot s) cannot pass before the others have their arrivals
        for (int j = 0; j < NC - 1; ++j) {
          st_cluster(rs + s * GL + l, j, r);
          mbar_arrive_cluster(ready + s, j);
        }
        rs[s * GL + l] = r;
        mbar_arrive(ready + s);
      }
    }
    if constexpr (NC > 1) cluster_sync();
    return;
  }

  // Accumulating warp a: every sub-slice in order (wide_accumulate's order and sums).
  const int a = w - C;
  const int e = lane >> LG;
  const int l = lane & (GL - 1);
  double acc[4 * QA];
#pragma unroll
  for (int i = 0; i < 4 * QA; ++i) acc[i] = 0.0;
  double accb = 0.0, accl = 0.0;
  constexpr int NG = (4 * QA + GL - 1) / GL;  // LEAN or GL 4: group sums a lane keeps
  double g01[NG], g2[NG];  // LEAN: G0 (+ G1) and G2 of accumulators i = GL c + l (c < NG)
  double g3[GL == 4 ? NG : 1];  // GL 4: the third partial of quartets_combine
#pragma unroll
  for (int c = 0; c < NG; ++c) g01[c] = g2[c] = 0.0;
#pragma unroll
  for (int c = 0; c < (GL == 4 ? NG : 1); ++c) g3[c] = 0.0;
  double pb[3] = {0.0, 0.0, 0.0}, pl[3] = {0.0, 0.0, 0.0};  // GL 4: the bias and loss partials
  for (int k = 0; k < total; ++k) {
    const int s = k % S;
    const SubSlice at = sub_slice<GL>(k, myTiles, lastPer, len, bx, G);
    if constexpr (NC > 1) mbar_wait_cluster(ready + s, (k / S) & 1);
    else mbar_wait(ready + s, (k / S) & 1);
    if (at.s * LANES + at.g * GL + l < at.cnt) {
      const float rl = rs[s * GL + l];
      const float4* sl = slots + s * SST + lane;
#pragma unroll
      for (int c = 0; c < QA; ++c) {
        const float4 xv = sl[32 * (a + A * c)];
        acc[4 * c] = __dadd_rn(acc[4 * c], (double)__fmul_rn(rl, xv.x));
        acc[4 * c + 1] = __dadd_rn(acc[4 * c + 1], (double)__fmul_rn(rl, xv.y));
        acc[4 * c + 2] = __dadd_rn(acc[4 * c + 2], (double)__fmul_rn(rl, xv.z));
        acc[4 * c + 3] = __dadd_rn(acc[4 * c + 3], (double)__fmul_rn(rl, xv.w));
      }
      if (a == 0 && e == 0 && rank == 0) {
        const double rd = (double)rl;
        accb = __dadd_rn(accb, rd);
        accl = __dadd_rn(accl, __dmul_rn(rd, rd));
      }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(empty + s);  // slot s free for sub-slice k + S
    if (at.s == at.per - 1) {
      // end of group at.g of tile at.t: the group's sums, combined with the tile's other groups
      if constexpr (GS_SHARED && !BFLY) {
        // the group tree as reduce-scatter levels (group_scatter; the butterfly takes 3 x 4 QA
        // double shuffles a lane, 96 at 1,024, and one lane of 8 writes the sums; here 4 QA - 4
        // QA / 8, 28, and every lane writes its sums): lanes l and l ^ 1 split
        // the 4 QA accumulators, then l ^ 2, then l ^ 4 where QA is even, so that lane l ends with
        // the sums of i = base + r (r < 4 QA / 8), base = (l & 1) 2 QA + (l >> 1 & 1) QA + (l >> 2
        // & 1) QA / 2; where QA is odd the last level is the butterfly over QA sums, and lanes l
        // and l ^ 4 write the even and the odd r
        constexpr int N = 4 * QA;
        constexpr bool EVEN = QA % 2 == 0;
        constexpr int NL = EVEN ? N / 8 : N / 4;  // the sums a lane ends with
        double h1[N / 2], h2[N / 4], h3[NL];
        group_scatter<N>(acc, h1, l & 1, 1);
        group_scatter<N / 2>(h1, h2, (l >> 1) & 1, 2);
        if constexpr (EVEN) {
          group_scatter<N / 4>(h2, h3, (l >> 2) & 1, 4);
        } else {
#pragma unroll
          for (int r = 0; r < NL; ++r) h3[r] = __dadd_rn(h2[r], __shfl_xor_sync(0xffffffffu, h2[r], 4));
        }
        const int base = (l & 1) * (N / 2) + ((l >> 1) & 1) * (N / 4) + (EVEN ? ((l >> 2) & 1) * (N / 8) : 0);
#pragma unroll
        for (int r = 0; r < NL; ++r) {
          const int i = base + r;
          const int j = 4 * (QG * (a + A * (i >> 2)) + e) + (i & 3);  // this block's feature f0 + j
          if ((EVEN || (r & 1) == ((l >> 2) & 1)) && f0 + j < d)
            groups_combine(gs[j], gs[4 * Q + j], at.g, h3[r], out + (i64)(f0 + j) * tiles + at.t);
        }
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] = 0.0;
      } else {
        // the butterfly: every lane of a group gets every sum (LEAN, lane groups of 4, BFLY)
#pragma unroll
        for (int i = 0; i < 4 * QA; ++i) {
          const double v = group_tree<GL>(acc[i]);
          const int j = 4 * (QG * (a + A * (i >> 2)) + e) + (i & 3);  // this block's feature f0 + j
          if constexpr (GL == 4) {
            // every lane of the group holds v: lane l keeps (and writes) accumulators i = 4 c + l
            if ((i & (GL - 1)) == l && j < d)
              quartets_combine(g01[i / GL], g2[i / GL], g3[i / GL], at.g, v, out + (i64)j * tiles + at.t);
          } else if (LEAN) {
            // every lane of the group holds v: lane l keeps (and writes) accumulators i = 8 c + l
            if ((i & (GL - 1)) == l && j < d)
              groups_combine(g01[i / GL], g2[i / GL], at.g, v, out + (i64)j * tiles + at.t);
          } else if (l == 0 && f0 + j < d) {
            groups_combine(gs[j], gs[4 * Q + j], at.g, v, out + (i64)(f0 + j) * tiles + at.t);
          }
          acc[i] = 0.0;
        }
      }
      if (a == 0 && rank == 0) {
        const double vb = group_tree<GL>(accb);
        const double vl = group_tree<GL>(accl);
        if (lane == 0) {
          if constexpr (GL == 4) {
            quartets_combine(pb[0], pb[1], pb[2], at.g, vb, out + (i64)d * tiles + at.t);
            quartets_combine(pl[0], pl[1], pl[2], at.g, vl, out + (i64)(d + 1) * tiles + at.t);
          } else {
            groups_combine(gbl[0], gbl[1], at.g, vb, out + (i64)d * tiles + at.t);
            groups_combine(gbl[2], gbl[3], at.g, vl, out + (i64)(d + 1) * tiles + at.t);
          }
        }
        accb = 0.0;
        accl = 0.0;
      }
    }
  }
  // NC > 1: no block leaves while another may still store or arrive in its shared memory
  if constexpr (NC > 1) cluster_sync();
}

// Wide d in clusters (the widec plans): at d > 1,024 a slice's 8
// samples x d features do not fit a block, so widet read x twice (deepxb: the chain's read, then
// the gradient's re-read, which misses the L2). Here a cluster of NC blocks (NC SMs, thread-block
// clusters of compute capability 9.0) holds a sub-slice together, block `rank` the features
// [4 Q rank, 4 Q (rank + 1)) of the octet layout at slice width 4 Q NC (those are the sub-slice's
// contiguous bytes [32 Q rank, 32 Q (rank + 1)) x 16, so each block's producer copies its part
// with one bulk copy), and x is read once. The binary32 chain of a sample runs through the blocks
// in feature order: block 0 from 0, block rank from the chain state that block rank - 1 stored
// into its HS slot (st.shared::cluster, then a release arrival at its HAND barrier); the last
// block adds b, subtracts y and stores r into every block's RS slot (arriving at each block's
// READY), so each block accumulates its features (block 0 also the bias and loss sums) and
// writes them at f0 + j: the same operations in the same order as widet at width 4 Q NC, so the
// same bits. Every remote store and arrival for sub-slice k reaches a block that cannot pass
// sub-slice k without it, and happens after that block's accumulation of k - S (the chain of k
// in block rank waited on FULL of k, which followed EMPTY of k - S in every block before it, and
// the last block's arrival comes after all of those), so the slot is free and the phase is right.

// WIDETR: WIDET with the chain rolled (chain_rolled, RC quads a half-iteration)
#define WIDETR_KERNEL(NAME, Q, C, TS, S, RC)                                                       \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 8, 0, 1, RC>(x, y, d, start, len, params, bias, out, tiles); \
  }
// WIDETG: WIDET (RC 0) or WIDETR (RC > 0) with the group tree as a butterfly (BFLY: every lane of
// a group gets every sum), for comparison
#define WIDETG_KERNEL(NAME, Q, C, TS, S, RC)                                                       \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 8, 0, 1, RC, true>(x, y, d, start, len, params, bias, out, tiles); \
  }
// WIDECR: WIDEC with the chain rolled (chain_rolled, RC quads a half-iteration)
#define WIDECR_KERNEL(NAME, NC, Q, C, TS, S, RC)                                                   \
  extern "C" __global__ void __cluster_dims__(NC, 1, 1) __launch_bounds__(32 * (C + 9), 1)        \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 8, 0, NC, RC>(x, y, d, start, len, params, bias, out, tiles); \
  }

// Parameters: those of the wide kernels. C chain warps of TS sub-slices a task, 8 accumulating
// warps, one producer warp, S slots. WIDEL: LEAN, the last parameter is the weights zero-padded to
// 4 Q features (CudaBackend uploads them for these plans).
#define WIDEL_KERNEL(NAME, Q, C, TS, S)                                                            \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ wpad) {                                           \
    widet_body<Q, C, 8, TS, S, true>(x, y, d, start, len, params, bias, out, tiles, wpad);         \
  }
#define WIDET_KERNEL(NAME, Q, C, TS, S)                                                            \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S>(x, y, d, start, len, params, bias, out, tiles);                     \
  }
// WIDEC: clusters of NC blocks (__cluster_dims__: the launch's grid is a multiple of NC), each
// widet's block at width 4 Q of a slice 4 Q NC features wide
#define WIDEC_KERNEL(NAME, NC, Q, C, TS, S)                                                        \
  extern "C" __global__ void __cluster_dims__(NC, 1, 1) __launch_bounds__(32 * (C + 9), 1)        \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 8, 0, NC>(x, y, d, start, len, params, bias, out, tiles);    \
  }

// ---------------------------------------------------------------------------------------------
// Deep d, the copy engine feeds the chain (the deept plans, d > 1,024; forced only). deepxb's one
// chain warp an SM runs ~18 cycles a feature (ncu on an H200), fed by 6 loader warps that each
// hold one 8 KB chunk in flight in registers (48 KB an SM) and stored it into the ring; at ~3.9
// floats a cycle an SM for the read limit the chain must take a 128-byte row in <= ~8 cycles. Here
// no warp moves x: the producer warp's lane 0 takes the block's slices by ticket and copies each
// slice's rows in chunks of R rows (a row: feature j of the slice's 32 samples, 128 contiguous
// bytes; a chunk R x 128 contiguous bytes of the slice layout) into slot k % S of a ring of S
// chunks with one bulk copy each (cp.async.bulk on a transaction barrier), as soon as the chain
// has freed the slot, so up to S R 128 bytes are in flight an SM (S = 16, R = 64: 128 KB); the
// chain warp (lane l: sample l of the slice, features in index order, weights as 16-byte vectors)
// only waits on FULL, adds the chunk's R terms from shared memory (LDS, FMUL, FADD), and arrives
// on EMPTY. Two transaction barriers a slot (phase k / S): FULL (1 arrival + the copy's bytes),
// EMPTY (1 arrival: the chain's lane 0). The slot's slice goes beside it (meta[slot], written by
// the producer before its arrival, which releases it); -1 after the last slice: the producer's
// plain arrival on FULL (no bytes) ends the chain. The gradient warps are deepxb's
// (fused_grad_tasks: tile t, F features by ticket once tile t's 32 slices have their r; re-read
// evict-first). Only batches that start on a slice boundary (a slice's rows are then contiguous;
// CudaBackend runs deepxb_o for the others). Same operations in the same order as deep: the same
// bits. Parameters and counters: deepf's (tick[0] the slice ticket, tick[1] the gradient ticket,
// tick[2 + t] the done slices of tile t). Dynamic shared memory: the weights (4 ceil(d / 4)
// floats, zeros past d), the ring (S R 32 floats), 2 S barriers, S ints.
// ---------------------------------------------------------------------------------------------
template <int R, int S, int F, int US, bool CS>
__device__ __forceinline__ void deept_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles, float* __restrict__ rbuf) {
  static_assert(R % 4 == 0, "whole weight vectors a chunk");
  extern __shared__ float4 sm4[];
  const float4* ws4 = sm4;
  float* wsf = reinterpret_cast<float*>(sm4);
  unsigned* tick = reinterpret_cast<unsigned*>(rbuf + n);
  const int dq = (d + 3) >> 2;
  float* ring = wsf + 4 * dq;  // [S][R][32], 16-byte aligned
  unsigned long long* full = reinterpret_cast<unsigned long long*>(ring + S * R * 32);
  unsigned long long* empty = full + S;
  volatile int* meta = reinterpret_cast<volatile int*>(empty + S);  // the slot's slice
  for (int j = threadIdx.x; j < 4 * dq; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full + s, 1);
      mbar_init(empty + s, 1);
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= 2) {
    fused_grad_tasks<F, US, CS>(x, d, start, len, out, tiles, rbuf, tick, 1u, lane);
    return;
  }
  const int slices = (len + LANES - 1) / LANES;
  const int cps = (d + R - 1) / R;  // chunks a slice
  if (w == 1) {
    // Producer: chunk k into slot k % S once the chain is done with chunk k - S.
    if (lane != 0) return;
    for (int k = 0;;) {
      const int s = (int)atomicAdd(tick, 1u);
      if (s >= slices) {
        const int p = k % S;
        if (k >= S) mbar_wait(empty + p, ((k / S) - 1) & 1);
        meta[p] = -1;
        mbar_arrive(full + p);  // no bytes: the end
        return;
      }
      const float* src = x + ((start >> 5) + s) * ((i64)d * 32);  // start % 32 == 0
      for (int m = 0; m < cps; ++m, ++k) {
        const int p = k % S;
        if (k >= S) mbar_wait(empty + p, ((k / S) - 1) & 1);
        meta[p] = s;
        const unsigned bytes = 128u * (unsigned)min(R, d - R * m);
        mbar_expect_tx(full + p, bytes);
        bulk_copy(ring + p * R * 32, src + (i64)R * m * 32, bytes, full + p);
      }
    }
  }
  // The chain warp: lane l the chain of sample l of each slice, chunk by chunk.
  for (int k = 0;;) {
    mbar_wait(full + k % S, (k / S) & 1);
    const int s = meta[k % S];
    if (s < 0) return;
    const int i = s * LANES + lane;
    const float yv = i < len ? y[start + i] : 0.0f;
    float r = 0.0f;
    for (int m = 0; m < cps; ++m, ++k) {
      const int p = k % S;
      if (m > 0) mbar_wait(full + p, (k / S) & 1);
      const float* slot = ring + p * R * 32 + lane;
      const int j0 = R * m;
      CHUNK_CHAIN(R)
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + p);  // slot p free for chunk k + S
    }
    if (bias) r = __fadd_rn(r, b);
    if (i < len) {
      rbuf[i] = __fsub_rn(r, yv);
      __threadfence();
    }
    __syncwarp();
    if (lane == 0) atomicAdd(tick + 2 + (s >> 5), 1u);  // slice s is in tile s / 32
  }
}

// Parameters: deepf's. One chain warp, one producer warp, A gradient warps of F features and US
// slices ahead (re-read evict-first), a ring of S chunks of R rows.
#define DEEPT_KERNEL(NAME, R, S, A, F, US)                                                         \
  extern "C" __global__ void __launch_bounds__(32 * (2 + A), 1) NAME(SMALL_ARGS, float* __restrict__ rbuf) { \
    deept_body<R, S, F, US, true>(x, y, n, d, start, len, params, bias, out, tiles, rbuf);        \
  }

// ---------------------------------------------------------------------------------------------
// Deep d, half-slice chains (the deeph plans, d > 1,024; forced only). deept and deepxb read x
// about twice from DRAM (ncu on an H200 at 2,048: 1.56 / 1.40 GB for 0.8 GB, L2 hit rate
// 8 / 14 %), DRAM near its peak: what lies between a row's first read and its re-read is at least
// one slice an SM (132 x 128 d bytes: 34 MB at 2,048) plus the tiles' completion lag, too much
// for the L2. Here a chain warp takes half a slice (16 samples: 64 d bytes an SM, 17 MB on the
// card at 2,048), which halves that, but then each chain must take a row in ~4 cycles (the
// binary32 addition's latency) for the read limit. deept's ring and barriers, but a chunk holds R
// half-rows (64 bytes: feature j of the 16 samples) and the producer warp's lanes copy them (one
// bulk copy of 64 bytes each; lane 0 expects the chunk's bytes first); half-slice h is slice h / 2,
// samples 16 (h % 2) .. + 15. Lane l of the chain warp runs the chain of sample l % 16 (lanes 16..31
// repeat 0..15 and do not write). A tile is done when its 64 half-slices are (fused_grad_tasks,
// PER_SLICE 2). Same operations in the same order: the same bits. Only batches that start on a
// slice boundary (CudaBackend runs deepxb_o for the others). Dynamic shared memory: the weights
// (4 ceil(d / 4) floats), the ring (S R 16 floats), 2 S barriers, S ints.
// ---------------------------------------------------------------------------------------------
template <int R, int S, int F, int US, bool CS>
__device__ __forceinline__ void deeph_body(const float* __restrict__ x, const float* __restrict__ y, i64 n, int d,
                                           i64 start, int len, const float* __restrict__ params, int bias,
                                           double* __restrict__ out, int tiles, float* __restrict__ rbuf) {
  static_assert(R % 32 == 0, "whole rows a producer lane");
  constexpr int H = LANES / 2;  // samples of a half-slice
  extern __shared__ float4 sm4[];
  const float4* ws4 = sm4;
  float* wsf = reinterpret_cast<float*>(sm4);
  unsigned* tick = reinterpret_cast<unsigned*>(rbuf + n);
  const int dq = (d + 3) >> 2;
  float* ring = wsf + 4 * dq;  // [S][R][16], 16-byte aligned
  unsigned long long* full = reinterpret_cast<unsigned long long*>(ring + S * R * H);
  unsigned long long* empty = full + S;
  volatile int* meta = reinterpret_cast<volatile int*>(empty + S);  // the slot's half-slice
  for (int j = threadIdx.x; j < 4 * dq; j += blockDim.x) wsf[j] = j < d ? params[j] : 0.0f;
  const float b = bias ? params[d] : 0.0f;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full + s, 1);
      mbar_init(empty + s, 1);
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int w = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= 2) {
    fused_grad_tasks<F, US, CS>(x, d, start, len, out, tiles, rbuf, tick, 2u, lane);
    return;
  }
  const int halves = 2 * ((len + LANES - 1) / LANES);
  const int cps = (d + R - 1) / R;  // chunks a half-slice
  if (w == 1) {
    // Producer warp: chunk k into slot k % S once the chain is done with chunk k - S.
    for (int k = 0;;) {
      unsigned hv = 0;
      if (lane == 0) hv = atomicAdd(tick, 1u);
      const int h = (int)__shfl_sync(0xffffffffu, hv, 0);
      if (h >= halves) {
        if (lane == 0) {
          const int p = k % S;
          if (k >= S) mbar_wait(empty + p, ((k / S) - 1) & 1);
          meta[p] = -1;
          mbar_arrive(full + p);  // no bytes: the end
        }
        return;
      }
      const float* src = x + ((start >> 5) + (h >> 1)) * ((i64)d * 32) + H * (h & 1);  // start % 32 == 0
      for (int m = 0; m < cps; ++m, ++k) {
        const int p = k % S;
        const int rows = min(R, d - R * m);
        if (lane == 0) {
          if (k >= S) mbar_wait(empty + p, ((k / S) - 1) & 1);
          meta[p] = h;
          mbar_expect_tx(full + p, 64u * (unsigned)rows);
        }
        __syncwarp();
        for (int u = lane; u < rows; u += 32)
          bulk_copy(ring + (p * R + u) * H, src + (i64)(R * m + u) * 32, 64u, full + p);
      }
    }
  }
  // The chain warp: lane l the chain of sample l % 16 of each half-slice, chunk by chunk.
  const int l = lane & (H - 1);
  for (int k = 0;;) {
    mbar_wait(full + k % S, (k / S) & 1);
    const int h = meta[k % S];
    if (h < 0) return;
    const int i = (h >> 1) * LANES + H * (h & 1) + l;
    const float yv = i < len ? y[start + i] : 0.0f;
    float r = 0.0f;
    for (int m = 0; m < cps; ++m, ++k) {
      const int p = k % S;
      if (m > 0) mbar_wait(full + p, (k / S) & 1);
      const float* slot = ring + p * R * H + l;
      const int j0 = R * m;
      if (j0 + R <= d) {
#pragma unroll
        for (int u = 0; u < R; u += 4) {
          const float4 wq = ws4[(j0 + u) >> 2];
          r = __fadd_rn(r, __fmul_rn(wq.x, slot[H * u]));
          r = __fadd_rn(r, __fmul_rn(wq.y, slot[H * (u + 1)]));
          r = __fadd_rn(r, __fmul_rn(wq.z, slot[H * (u + 2)]));
          r = __fadd_rn(r, __fmul_rn(wq.w, slot[H * (u + 3)]));
        }
      } else {
        for (int u = 0; u < d - j0; ++u) r = __fadd_rn(r, __fmul_rn(wsf[j0 + u], slot[H * u]));
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + p);  // slot p free for chunk k + S
    }
    if (bias) r = __fadd_rn(r, b);
    if (lane < H && i < len) {
      rbuf[i] = __fsub_rn(r, yv);
      __threadfence();
    }
    __syncwarp();
    if (lane == 0) atomicAdd(tick + 2 + (h >> 6), 1u);  // half-slice h is in tile h / 64
  }
}

// Parameters: deepf's. One chain warp (16 samples), one producer warp, A gradient warps of F
// features and US slices ahead (re-read evict-first), a ring of S chunks of R half-rows.
#define DEEPH_KERNEL(NAME, R, S, A, F, US)                                                         \
  extern "C" __global__ void __launch_bounds__(32 * (2 + A), 1) NAME(SMALL_ARGS, float* __restrict__ rbuf) { \
    deeph_body<R, S, F, US, true>(x, y, n, d, start, len, params, bias, out, tiles, rbuf);        \
  }

// ---------------------------------------------------------------------------------------------
// Wide d in lane groups of 4 (the widetq / widelq bodies, not instantiated): widet_body
// with GL = 4, x in the quartet layout (xo4: a slice as [8 groups][W / 4][4 lanes][4 features]).
// A sub-slice is 4 samples x W features (16 KB at W = 1,024: twice widet's slots in the same
// shared memory, so that more of them load while others run their chains), and a tile's
// accumulators halve (4 W doubles: 16 a thread of 8 accumulating warps at 1,024, 32 at 2,048), so
// W = 2,048 fits a block: a single read of x at 1,024 < d <= 2,048, where deepxb reads it twice.
// Chain lane (h = lane / 4 mod TS, l = lane % 4), TS up to 8 (all 32 lanes). Accumulating warp a,
// lane (e = lane / 4, l = lane % 4) owns lane l of quads 8 (a + A c) + e. The lane tree: l ^ 1,
// l ^ 2 inside the group (group_tree<4>), then the eight groups ((G0 + G1) + (G2 + G3)) + ((G4 +
// G5) + (G6 + G7)) through a stack of three partials in registers (quartets_combine; lane l of
// the group keeps features i = 4 c + l of its accumulators), so the same pairs as lane_tree: the
// same bits. Dynamic shared memory: S slots of 4 Q vectors (+ SP each), the weights (Q vectors;
// widelq: none, from wpad), the bias and loss sums' place (4 doubles, unused), S * 4 residuals,
// 3 S barriers.
// Measured on two H200s (2026-12-01, every row bits=ref, parity 27 of 27): slower than the octet
// kernels everywhere, so NOT instantiated in local_sums_sm90.cu: at d = 1,024 the best, 1 x 8 with padded slots, 2.75 TB/s where
// widet 3 x 2 read 3.27; at 2,048 2 x 3 (p) 1.34 where deepxb read 2.03; at 1,500 2 x 2 1.92,
// deepxb 1.90. A chain holds 4 W bytes of a slot whatever the group size, so finer slots do not
// put more chains in flight for the same shared memory (Little's law: at 2,048, 6 slots of 32 KB
// hold at most 24 chains and none loading; ncu, DRAM 28 %), while the per-byte overheads grow
// (twice the sub-slices and barrier rounds, chain loads 2-way bank conflicts: the p shapes pad
// each slot by 64 bytes, +1.6 %). The kernels, forced plans (widetqCxT, widelqCxT, widetqCxTp),
// quartet passes (resid4_o, grad4_o), ResidentLayout's quartet layout and their tests are in
// commit ba5c305 (the state measured); kernel-emu keeps the modes widetqW_CxT / widelqW_CxT on
// these bodies.
// ---------------------------------------------------------------------------------------------
#define WIDETQ_KERNEL(NAME, Q, C, TS, S)                                                           \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 4>(x, y, d, start, len, params, bias, out, tiles);           \
  }
#define WIDETQP_KERNEL(NAME, Q, C, TS, S)                                                          \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ unused) {                                         \
    widet_body<Q, C, 8, TS, S, false, 4, 4>(x, y, d, start, len, params, bias, out, tiles);        \
  }
#define WIDELQ_KERNEL(NAME, Q, C, TS, S)                                                           \
  extern "C" __global__ void __launch_bounds__(32 * (C + 9), 1)                                   \
      NAME(SMALL_ARGS, const float* __restrict__ wpad) {                                           \
    widet_body<Q, C, 8, TS, S, true, 4>(x, y, d, start, len, params, bias, out, tiles, wpad);      \
  }
