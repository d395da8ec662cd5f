// ---------------------------------------------------------------------------------------------
// Large d, row layout (d <= 32 K <= 256; any batch start). x resident row-major with a row
// stride of dp = d rounded up to a multiple of 4 floats (the host zero-fills the padding), so
// the P slices of a step are P * 32 * dp contiguous floats wherever the batch starts.
// The stage keeps that sample-major layout in shared memory with a row stride S (S / 4 odd:
// dp or dp + 4), which makes every 16-byte shared access below conflict-free (the 8 threads of
// a quarter-warp touch 8 different rows, 4 S apart in banks):
//  - the residual chain of a sample (warp v < P, one sample a thread) reads its row as 16-byte
//    vectors: a quarter of the shared loads of flow_chain, same terms, same order;
//  - thread (warp v, lane l) owns the accumulators of lane l for the contiguous features
//    K v .. K v + K - 1 and reads them as K / 4 vectors of its sample's row.
// Otherwise as flow_body: one block barrier a step, the chains of step g+1 run while the block
// accumulates step g, x loaded A steps ahead into registers, the weights by value.
// Dynamic shared memory: xs[3][P * 32][S] floats, then rs[2][P][32] floats.
// ---------------------------------------------------------------------------------------------
template <int K>
__device__ __forceinline__ float rows_chain(const WParam& wp, const float4* row, int d) {
  float r = 0.0f;
#pragma unroll
  for (int c = 0; c < 8 * K; ++c) {
    if (4 * c < d) {
      const float4 q = row[c];
      r = __fadd_rn(r, __fmul_rn(wp.w[4 * c], q.x));
      if (4 * c + 1 < d) r = __fadd_rn(r, __fmul_rn(wp.w[4 * c + 1], q.y));
      if (4 * c + 2 < d) r = __fadd_rn(r, __fmul_rn(wp.w[4 * c + 2], q.z));
      if (4 * c + 3 < d) r = __fadd_rn(r, __fmul_rn(wp.w[4 * c + 3], q.w));
    }
  }
  return r;
}

template <int K, int P>
__device__ __forceinline__ void rows_load(const float4* __restrict__ x4, const float* __restrict__ ys, i64 start,
                                          int q4, int len, int g, int nq, float4 (&xr)[P * K / 4], float& yr) {
  constexpr int M = P * K / 4;  // P * 32 rows * 8 K floats / 4 per vector / 1024 threads
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int t = blockIdx.x + (g / nq) * gridDim.x;
  const int q = g % nq;
  const int base = t * TILE;
  const int cnt = min(TILE, len - base);
  const int f = base + q * P * LANES;  // first sample of the step, batch-relative
  const int rows = max(0, min(P * LANES, cnt - q * P * LANES));
  const int nvalid = rows * q4;        // 16-byte vectors of the step inside the batch
  const float4* src = x4 + (start + f) * (i64)q4;
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

template <int K, int P, int A, bool ORDERED>
__device__ __forceinline__ void rows_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                          int len, const WParam& wp, int bias, double* __restrict__ out, int tiles) {
  constexpr int M = P * K / 4;
  extern __shared__ float4 sm4[];
  const int q4 = (d + 3) >> 2;             // vectors per row in global memory
  const int s4 = q4 | 1;                   // vectors per row in the stage (odd: conflict-free)
  const int sz4 = P * LANES * s4;          // vectors per stage buffer
  float4* stage4 = sm4;                    // 3 buffers
  float* rs = reinterpret_cast<float*>(sm4 + 3 * sz4);  // 2 * P * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = SLICES / P;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float* ys = y + start;
  const float b = wp.b;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int total = myTiles * nq;
  const int lw = P & 31;
  const int j0 = K * v;                    // first feature of this warp
  if (total == 0) return;

  // where this thread's loaded vectors go in a stage buffer (same for every step)
  int dst[M];
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const int idx = threadIdx.x + 1024 * m;
    const int row = idx / q4;
    dst[m] = row * s4 + (idx - row * q4);
  }

  double acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0.0;
  double accb = 0.0, accl = 0.0;
  float4 xr[A][M];
  float yr[A];
#pragma unroll
  for (int a = 0; a < A; ++a) yr[a] = 0.0f;

#pragma unroll
  for (int a = 0; a < A; ++a)
    if (a < total) rows_load<K, P>(x4, ys, start, q4, len, a, nq, xr[a], yr[a]);
  for (int g = -1; g < total; ++g) {
    float ynext = 0.0f;
    float4* stn4 = stage4 + ((g + 1) % 3) * sz4;
    if (g + 1 < total) {
#pragma unroll
      for (int m = 0; m < M; ++m) {
        if (threadIdx.x + 1024 * m < P * LANES * q4) stn4[dst[m]] = xr[0][m];
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
    if (g + 1 + A < total) rows_load<K, P>(x4, ys, start, q4, len, g + 1 + A, nq, xr[A - 1], yr[A - 1]);
    if (v < P && g + 1 < total) {
      float r = rows_chain<K>(wp, stn4 + (v * LANES + lane) * s4, d);
      if (bias) r = __fadd_rn(r, b);
      r = __fsub_rn(r, ynext);
      rs[((g + 1) & 1) * P * LANES + v * LANES + lane] = r;
    }
    if (g < 0) continue;
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    const float4* st4 = stage4 + (g % 3) * sz4;
    const float* rc = rs + (g & 1) * P * LANES;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      if ((q * P + p) * LANES + lane < cnt) {
        const float rl = rc[p * LANES + lane];
        if (j0 < d) {
          const float4* row = st4 + (p * LANES + lane) * s4 + (j0 >> 2);
#pragma unroll
          for (int c = 0; c < K / 4; ++c) {
            const float4 q4v = row[c];
            const float xv[4] = {q4v.x, q4v.y, q4v.z, q4v.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int k = 4 * c + e;
              if (j0 + k < d) acc[k] = __dadd_rn(acc[k], (double)__fmul_rn(rl, xv[e]));
            }
          }
        }
        if (v == lw) {
          const double rd = (double)rl;
          accb = __dadd_rn(accb, rd);
          accl = __dadd_rn(accl, __dmul_rn(rd, rd));
        }
      }
    }
    if (ORDERED && q == nq - 1) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = j0 + k;
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
  }
  if (!ORDERED) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = j0 + k;
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

// Parameters as FLOW_KERNEL's (x here in the row layout).
#define ROWS_KERNEL(NAME, K, P, A, ORD)                                                            \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    rows_body<K, P, A, ORD>(x, y, d, start, len, wp, bias, out, tiles);                            \
  }

ROWS_KERNEL(rows_o_4_1, 4, 1, 2, true)
ROWS_KERNEL(rows_o_8_1, 8, 1, 2, true)
ROWS_KERNEL(rows_o_4_2, 4, 2, 1, true)
ROWS_KERNEL(rows_o_8_2, 8, 2, 1, true)
ROWS_KERNEL(rows_o_8_3, 8, 2, 2, true)
ROWS_KERNEL(rows_a_4_1, 4, 1, 2, false)
ROWS_KERNEL(rows_a_8_1, 8, 1, 2, false)
ROWS_KERNEL(rows_a_4_2, 4, 2, 1, false)
ROWS_KERNEL(rows_a_8_2, 8, 2, 1, false)
ROWS_KERNEL(rows_a_8_3, 8, 2, 2, false)

