// ---------------------------------------------------------------------------------------------
// Large d, warp-specialised (d <= 32 K <= 256; batches that start on a slice boundary). Same
// order, arithmetic and stage as flow_body, but warps 0..P-1 only run residual chains and warps
// P..31 (the workers) do everything else. A chain warp then holds no accumulators and no load
// registers, so it keeps the next 16 features' shared loads in flight while it adds the current
// 16 (the profile of flow_body shows its chains waiting on shared loads that queue behind the
// accumulation's), and no worker waits for a chain warp's share of the accumulation.
// Worker w = v - P owns the accumulators of features j = w + (32 - P) k, k < KW, and loads its
// share of the next step's 16-byte vectors. The two roles run separate loops with the same
// barrier per step: stage g+1 stored and the residuals of step g complete.
// Dynamic shared memory: xs[3][P][d][32] floats, rs[2][P][32] floats, then (NW KW - d) 32 floats
// of slack for the unguarded accumulation.
// ---------------------------------------------------------------------------------------------
template <int K>
__device__ __forceinline__ float spec_chain(const WParam& wp, const float* col, int d) {
  float r = 0.0f;
  const int nh = d >> 4;  // whole groups of 16 features
  float a[16], n[16];
  if (nh > 0) {
#pragma unroll
    for (int u = 0; u < 16; ++u) a[u] = col[u * LANES];
  }
#pragma unroll
  for (int h = 0; h < 2 * K; ++h) {
    if (h < nh) {
      if (h + 1 < nh) {
#pragma unroll
        for (int u = 0; u < 16; ++u) n[u] = col[(16 * (h + 1) + u) * LANES];
      }
#pragma unroll
      for (int u = 0; u < 16; ++u) r = __fadd_rn(r, __fmul_rn(wp.w[16 * h + u], a[u]));
#pragma unroll
      for (int u = 0; u < 16; ++u) a[u] = n[u];
    }
  }
#pragma unroll
  for (int u = 0; u < 15; ++u) {
    const int j = 16 * nh + u;
    if (j < d) r = __fadd_rn(r, __fmul_rn(wp.w[j], col[j * LANES]));
  }
  return r;
}

template <int K, int P, bool ORDERED>
__device__ __forceinline__ void spec_body(const float* __restrict__ x, const float* __restrict__ y, int d, i64 start,
                                          int len, const WParam& wp, int bias, double* __restrict__ out, int tiles) {
  constexpr int NW = 32 - P;                                   // worker warps
  constexpr int KW = (32 * K + NW - 1) / NW;                   // features per worker
  constexpr int MW = (P * 8 * 32 * K + NW * 32 - 1) / (NW * 32);  // vectors per worker thread
  extern __shared__ float4 sm4[];
  float4* stage4 = sm4;                                        // 3 * P * 8 d vectors
  float* rs = reinterpret_cast<float*>(sm4 + 3 * P * 8 * d);   // 2 * P * 32
  const int v = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int nq = SLICES / P;
  const int sz4 = P * 8 * d;
  const int sz = P * d * LANES;
  const float* ys = y + start;
  const int myTiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int total = myTiles * nq;
  if (total == 0) return;

  if (v < P) {
    // ---- chain warp v: the residuals of slice v of every step ----
    for (int g = -1; g < total; ++g) {
      __syncthreads();  // stage g+1 stored; everyone is past step g-1
      if (g + 1 < total) {
        const int s = g + 1;
        const int t = blockIdx.x + (s / nq) * gridDim.x;
        const int k0 = ((s % nq) * P + v) * LANES + lane;
        const float yv = k0 < min(TILE, len - t * TILE) ? ys[t * TILE + k0] : 0.0f;
        const float* stn = reinterpret_cast<const float*>(stage4) + (s % 3) * sz;
        float r = spec_chain<K>(wp, stn + (v * d) * LANES + lane, d);
        if (bias) r = __fadd_rn(r, wp.b);
        r = __fsub_rn(r, yv);
        rs[(s & 1) * P * LANES + v * LANES + lane] = r;
      }
    }
    return;
  }

  // ---- worker warps ----
  const int w = v - P;
  const int tw = threadIdx.x - 32 * P;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  double acc[KW];
#pragma unroll
  for (int k = 0; k < KW; ++k) acc[k] = 0.0;
  double accb = 0.0, accl = 0.0;
  float4 xr[MW];
  auto load = [&](int s) {
    const int t = blockIdx.x + (s / nq) * gridDim.x;
    const int q = s % nq;
    const int cnt = min(TILE, len - t * TILE);
    const int rem = cnt - q * P * LANES;
    const int ns = rem <= 0 ? 0 : min(P, (rem + LANES - 1) / LANES);
    const int nvalid = ns * 8 * d;
    const float4* src = x4 + ((start + t * TILE + q * P * LANES) >> 5) * ((i64)d * 8);
#pragma unroll
    for (int m = 0; m < MW; ++m) {
      const int idx = tw + NW * 32 * m;
      xr[m] = idx < nvalid ? src[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  };
  load(0);
  for (int g = -1; g < total; ++g) {
    if (g + 1 < total) {
      float4* stn4 = stage4 + ((g + 1) % 3) * sz4;
#pragma unroll
      for (int m = 0; m < MW; ++m) {
        const int idx = tw + NW * 32 * m;
        if (idx < sz4) stn4[idx] = xr[m];
      }
    }
    __syncthreads();  // stage g+1 stored; residuals of step g complete
    if (g + 2 < total) load(g + 2);
    if (g < 0) continue;
    const int q = g % nq;
    const int t = blockIdx.x + (g / nq) * gridDim.x;
    const int cnt = min(TILE, len - t * TILE);
    const float* st = reinterpret_cast<const float*>(stage4) + (g % 3) * sz;
    const float* rc = rs + (g & 1) * P * LANES;
    if ((q * P + P) * LANES <= cnt) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float rl = rc[p * LANES + lane];
        const float* sp = st + (p * d + w) * LANES + lane;
#pragma unroll
        for (int k = 0; k < KW; ++k) acc[k] = __dadd_rn(acc[k], (double)__fmul_rn(rl, sp[NW * k * LANES]));
        if (w == 0) {
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
          for (int k = 0; k < KW; ++k) {
            const int j = w + NW * k;
            if (j < d) acc[k] = __dadd_rn(acc[k], (double)__fmul_rn(rl, st[(p * d + j) * LANES + lane]));
          }
          if (w == 0) {
            const double rd = (double)rl;
            accb = __dadd_rn(accb, rd);
            accl = __dadd_rn(accl, __dmul_rn(rd, rd));
          }
        }
      }
    }
    if (ORDERED && q == nq - 1) {
#pragma unroll
      for (int k = 0; k < KW; ++k) {
        const int j = w + NW * k;
        if (j < d) {
          const double s = lane_tree(acc[k]);
          if (lane == 0) out[(i64)j * tiles + t] = s;
        }
        acc[k] = 0.0;
      }
      if (w == 0) {
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
    for (int k = 0; k < KW; ++k) {
      const int j = w + NW * k;
      if (j < d) {
        const double s = lane_tree(acc[k]);
        if (lane == 0) atomicAdd(out + j, s);
      }
    }
    if (w == 0) {
      const double sb = lane_tree(accb);
      const double sl = lane_tree(accl);
      if (lane == 0) {
        atomicAdd(out + d, sb);
        atomicAdd(out + d + 1, sl);
      }
    }
  }
}

#define SPEC_KERNEL(NAME, K, P, ORD)                                                               \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
      NAME(SMALL_ARGS, const float* __restrict__ unused, const WParam wp) {                        \
    spec_body<K, P, ORD>(x, y, d, start, len, wp, bias, out, tiles);                               \
  }

SPEC_KERNEL(spec_o_4_2, 4, 2, true)
SPEC_KERNEL(spec_o_8_2, 8, 2, true)
SPEC_KERNEL(spec_a_4_2, 4, 2, false)
SPEC_KERNEL(spec_a_8_2, 8, 2, false)

