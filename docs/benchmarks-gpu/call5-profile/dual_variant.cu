// ---------------------------------------------------------------------------------------------
// Large d, streamed with two stage buffers (d <= 32 K <= 256; batches that start on a slice
// boundary). The arithmetic, the thread mapping, the loads and the chain are flow_body's; the
// block synchronises twice a step instead of once, which frees the third stage buffer and so
// lets a step hold P = 3 slices (3 residual chains in parallel on three warps) in the shared
// memory that holds 2 in flow_body:
//   barrier 1: stage g and g+1 and the residuals of step g are complete;
//   warps 0..P-1 run the chains of step g+1 while every warp accumulates step g;
//   barrier 2: step g's stage is free: store the registers of step g+2 there, load step g+3.
// A tile's 32 slices take ceil(32 / P) steps (at P = 3 the last step holds 2 slices).
// Dynamic shared memory: xs[2][P][d][32] floats, then rs[2][P][32] floats, then the slack of
// flow_body.
// ---------------------------------------------------------------------------------------------
template <int K, int P, bool ORDERED>
__device__ __forceinline__ void dual_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                          int len, const WParam& wp, int bias, double* __restrict__ out, int tiles) {
  constexpr int M = (P * K * 256 + 1023) / 1024;
  extern __shared__ float4 sm4[];
  float4* stage4 = sm4;                                        // 2 * P * 8 d vectors
  float* rs = reinterpret_cast<float*>(sm4 + 2 * P * 8 * d);   // 2 * P * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = (SLICES + P - 1) / P;
  const int sz4 = P * 8 * d;      // vectors per stage buffer
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
  float4 xr[M];
  float yr = 0.0f, ynext = 0.0f;

  // prologue: stage steps 0 and 1, registers hold step 2, chains of step 0
  float y0 = 0.0f;
  flow_load<K, P>(x4, ys, start, d, len, 0, nq, xr, yr);
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const int idx = threadIdx.x + 1024 * m;
    if (idx < sz4) stage4[idx] = xr[m];
  }
  y0 = yr;
  if (1 < total) {
    flow_load<K, P>(x4, ys, start, d, len, 1, nq, xr, yr);
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const int idx = threadIdx.x + 1024 * m;
      if (idx < sz4) stage4[sz4 + idx] = xr[m];
    }
    ynext = yr;
  }
  if (2 < total) flow_load<K, P>(x4, ys, start, d, len, 2, nq, xr, yr);
  __syncthreads();
  if (v < P) {
    float r = flow_chain<K>(wp, reinterpret_cast<const float*>(stage4) + (v * d) * LANES + lane, d);
    if (bias) r = __fadd_rn(r, b);
    r = __fsub_rn(r, y0);
    rs[v * LANES + lane] = r;
  }

  for (int g = 0; g < total; ++g) {
    __syncthreads();  // barrier 1: stages g, g+1 and the residuals of step g are complete
    if (v < P && g + 1 < total) {
      const float* stn = reinterpret_cast<const float*>(stage4) + ((g + 1) & 1) * sz;
      float r = flow_chain<K>(wp, stn + (v * d) * LANES + lane, d);
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, ynext);
      rs[((g + 1) & 1) * P * LANES + v * LANES + lane] = r;
    }
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    const float* st = reinterpret_cast<const float*>(stage4) + (g & 1) * sz;
    const float* rc = rs + (g & 1) * P * LANES;
    if ((q * P + P) * LANES <= cnt) {
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
    if (ORDERED && q == nq - 1) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = v + 32 * k;
        if (j < d) {
          const double s = lane_tree(acc[k]);
          if (lane == 0) out[(i64)j * tiles + t] = s;
        }
        acc[k] = 0.0;
      }
      if (v == lw) {
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
    __syncthreads();  // barrier 2: step g's stage is free
    if (g + 2 < total) {
      float4* dst = stage4 + (g & 1) * sz4;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const int idx = threadIdx.x + 1024 * m;
        if (idx < sz4) dst[idx] = xr[m];
      }
      ynext = yr;
      if (g + 3 < total) flow_load<K, P>(x4, ys, start, d, len, g + 3, nq, xr, yr);
    }
  }
  if (!ORDERED) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = v + 32 * k;
      if (j < d) {
        const double s = lane_tree(acc[k]);
        if (lane == 0) atomicAdd(out + j, s);
      }
    }
    if (v == lw) {
      const double sb = lane_tree(accb);
      const double sl = lane_tree(accl);
      if (lane == 0) {
        atomicAdd(out + d, sb);
        atomicAdd(out + d + 1, sl);
      }
    }
  }
}

#define DUAL_KERNEL(NAME, K, P, ORD)                                                               \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    dual_body<K, P, ORD>(x, y, d, start, len, wp, bias, out, tiles);                               \
  }

DUAL_KERNEL(dual_o_4_3, 4, 3, true)
DUAL_KERNEL(dual_o_8_3, 8, 3, true)
DUAL_KERNEL(dual_o_8_2, 8, 2, true)
DUAL_KERNEL(dual_a_4_3, 4, 3, false)
DUAL_KERNEL(dual_a_8_3, 8, 3, false)
DUAL_KERNEL(dual_a_8_2, 8, 2, false)

