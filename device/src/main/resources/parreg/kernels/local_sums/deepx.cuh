#pragma once

// parreg local sums: the kernel bodies of deepx (chains fed through shared memory; deepxb is the
// ladder's). local_sums.cuh includes every family in order; common.cuh holds the layout and the
// build flags.

#include "small.cuh"
#include "spec.cuh"
#include "deepw.cuh"

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
// The residual chain over one chunk of R rows of a slot: features j0 .. j0 + R - 1 of the lane's
// sample (the last chunk: j0 .. d - 1), added to r in feature order, the weights in quads (ws4) and
// as floats (wsf). The arithmetic that defines the bits of deepx's chains and of deept's
// (local_sums_sm90.cuh). A macro rather than a function: as a function the compiler numbers the
// kernels' registers differently (same operations, but not the same PTX bytes).
#define CHUNK_CHAIN(R)                                                                             \
  if (j0 + R <= d) {                                                                               \
    _Pragma("unroll") for (int u = 0; u < R; u += 4) {                                             \
      const float4 wq = ws4[(j0 + u) >> 2];                                                        \
      r = __fadd_rn(r, __fmul_rn(wq.x, slot[32 * u]));                                             \
      r = __fadd_rn(r, __fmul_rn(wq.y, slot[32 * (u + 1)]));                                       \
      r = __fadd_rn(r, __fmul_rn(wq.z, slot[32 * (u + 2)]));                                       \
      r = __fadd_rn(r, __fmul_rn(wq.w, slot[32 * (u + 3)]));                                       \
    }                                                                                              \
  } else {                                                                                         \
    for (int u = 0; u < d - j0; ++u) r = __fadd_rn(r, __fmul_rn(wsf[j0 + u], slot[32 * u]));     \
  }

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
      CHUNK_CHAIN(DEEPX_ROWS)
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
