// Host emulation of new kernel bodies against the two passes (resid_body + grad_body), whose bits
// CudaParityTest checks on the card: for use where no card is at hand. local_sums.cuh compiled by
// g++ with shim.h (one std::thread per CUDA thread, barriers for __syncthreads and shuffles,
// binary32/binary64 operations through volatile stores, no contraction), random binary32 data
// with zeros of both signs and subnormals, with and without bias, batches at the offsets of
// CudaParityTest.check; every (coordinate, tile) value is compared bit for bit. It checks the
// order and the indexing of the source, not the card's code generation: parity on the card
// stays the test. Usage: scripts/check/kernel-emu/run.sh D N deep|narrow24|narrow32|narrow48|narrow64|narrow24u1|narrow32u1
// |deepf|deepfd|spec48|spec104|spec208|wide384|...|wide1024|wide2_384|...|wide2_1024|widetW_CxT|widelW_CxT|widetqW_CxT|widelqW_CxT|widecN_W_CxT|splitK_F_U_T[p]|narrowpDM_uU[p] (spec, wide, wide2, widet, widel, widec: the
// batches that start on a slice boundary, x converted to the quad or octet layout).
#include "shim.h"
#include "local_sums.cuh"
#include "local_sums_sm90.cuh"
#include <cstdio>
#include <random>
#include <cmath>
#include <string>
float ws[8192];
float sm[1];
float4 sm4[16384];  // the dynamic shared memory of the spec and wide kernels (256 KB)

static std::mt19937_64 rng(12345);
static float mixed() {
  uint64_t k = rng() % 16;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  uint32_t bits;
  switch (k) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: bits = (uint32_t)(rng() % 0x7fffff + 1) | ((rng() & 1) << 31); float f; memcpy(&f, &bits, 4); return f;  // subnormal
    case 3: return u(rng) * 1e-30f;
    case 4: return u(rng) * 1e6f;
    default: return u(rng);
  }
}

// out: coords x tiles
struct Run { std::vector<double> out; };

static bool same(const std::vector<double>& a, const std::vector<double>& b, int coords, int tiles, const char* what) {
  for (int c = 0; c < coords; ++c)
    for (int t = 0; t < tiles; ++t) {
      uint64_t p, q;
      memcpy(&p, &a[(size_t)c * tiles + t], 8);
      memcpy(&q, &b[(size_t)c * tiles + t], 8);
      if (p != q) {
        printf("MISMATCH %s c=%d t=%d %.17g %.17g\n", what, c, t, a[(size_t)c * tiles + t], b[(size_t)c * tiles + t]);
        return false;
      }
    }
  return true;
}

int main(int argc, char** argv) {
  int d = atoi(argv[1]);
  int n = atoi(argv[2]);
  const char* which = argv[3];  // deep | narrow24 | narrow32 | narrow48 | narrow64
  long long slices = (n + 31) / 32;
  std::vector<float> x((size_t)slices * 32 * d, 0.0f), y(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) x[(size_t)(i / 32) * 32 * d + 32 * j + i % 32] = mixed();
  for (int i = 0; i < n; ++i) y[i] = mixed();
  std::vector<std::pair<int, int>> batches = {{0, n}};
  if (n > 2) batches.push_back({1, n - 2});
  if (n > 3000) {
    batches.push_back({1029, std::min(n - 1029, 2048 + 513)});
    batches.push_back({2112, n - 2112 - 7});
    batches.push_back({n / 3, n - n / 3});
  }
  int fails = 0;
  if (argc > 4) {  // a fourth argument: only the whole batch and the batch at 2112
    batches.erase(std::remove_if(batches.begin(), batches.end(), [](auto b) { return b.first != 0 && b.first != 2112; }), batches.end());
  }
  // the quad layout of W features (spec) and the octet layout (wide), from the slice layout
  // (quart: the quartet layout of widetq / widelq, xo4)
  bool quart = false;
  auto padded = [&](int W, bool oct) {
    std::vector<float> v((size_t)slices * 32 * W, 0.0f);
    for (long long i = 0; i < (long long)slices * 32; ++i)
      for (int j = 0; j < d; ++j)
        v[quart ? xo4(j, i, W) : oct ? xo(j, i, W) : xq(j, i, W)] = i < n ? x[(size_t)(i / 32) * 32 * d + 32 * j + i % 32] : 0.0f;
    return v;
  };
  std::string mode = which;
  int W = 0;
  bool oct = false;
  if (mode.rfind("spec", 0) == 0) W = atoi(mode.c_str() + 4);
  int TC = 0, TT = 0;  // widetW_CxT / widelW_CxT: chain warps, sub-slices a task
  std::string sfx;     // widetW_CxT[sfx]: a comparison kernel's suffix (g: WIDETG_KERNEL)
  int NCv = 0, RCv = 0;  // widecNC_W_CxT[rRC]: clusters of NC blocks of width W (the slice NC W
                         // features wide), the chain rolled RC quads a half-iteration (0: unrolled)
  if (mode.rfind("widec", 0) == 0) {
    sscanf(mode.c_str() + 5, "%d_%d_%dx%dr%d", &NCv, &W, &TC, &TT, &RCv);
    W *= NCv;
    oct = true;
  } else if (mode.rfind("widetq", 0) == 0 || mode.rfind("widelq", 0) == 0) {
    // widetqW_CxT / widelqW_CxT: lane groups of 4; batches at offsets run the quartet two passes
    sscanf(mode.c_str() + 6, "%d_%dx%d", &W, &TC, &TT);
    oct = true;
    quart = true;
  } else if (mode.rfind("widet", 0) == 0 || mode.rfind("widel", 0) == 0) {
    // widetW_CxT[sfx] / widelW_CxT[sfx]: sfx a comparison kernel's suffix (g)
    int used = 0;
    sscanf(mode.c_str() + 5, "%d_%dx%d%n", &W, &TC, &TT, &used);
    sfx = mode.substr(5 + used);
    oct = true;
  } else if (mode.rfind("wide2_", 0) == 0) { W = atoi(mode.c_str() + 6); oct = true; }
  else if (mode.rfind("widea", 0) == 0) { W = atoi(mode.c_str() + 5); oct = true; }
  else if (mode.rfind("wide", 0) == 0) { W = atoi(mode.c_str() + 4); oct = true; }
  std::vector<float> xp = W ? padded(W, oct) : std::vector<float>();
  for (int bias = 0; bias < 2; ++bias) {
    std::vector<float> params(d + 1);
    for (int j = 0; j <= d; ++j) params[j] = (float)(mixed() * 0.5);
    if (!bias) params[d] = 0.0f;
    WParam wp{};
    for (int j = 0; j < d && j < 256; ++j) wp.w[j] = params[j];
    wp.b = params[d];
    for (auto [start, len] : batches) {
      if (W && !quart && start % 32 != 0) continue;  // those run the plan's fallback
      int tiles = (len + 1023) / 1024;
      int coords = d + 2;
      std::vector<double> ref((size_t)coords * tiles, -1.0), got((size_t)coords * tiles, -2.0);
      std::vector<float> rbuf(len), rbuf2(len);
      const float* X = x.data(); const float* Y = y.data(); const float* P = params.data();
      double* R = ref.data();
      launch(2, 1, 256, [&] { resid_body<true>(X, Y, n, d, start, len, P, bias, R, tiles, rbuf.data()); });
      launch(std::min(tiles, 3), (d + 7) / 8, 256, [&] { grad_body<true>(X, n, d, start, len, R, tiles, rbuf.data()); });
      double* G = got.data();
      std::string w = which;
      if (w == "deep") {
        launch(3, 1, 256, [&] { deep_resid_body<16>(X, Y, d, start, len, P, bias, rbuf2.data()); });
        launch(5, 1, 256, [&] { deep_grad_body<16>(X, d, start, len, G, tiles, rbuf2.data()); });
        for (int i = 0; i < len; ++i)
          if (memcmp(&rbuf[i], &rbuf2[i], 4)) { printf("MISMATCH r[%d]\n", i); ++fails; break; }
      } else if (w.rfind("deepf", 0) == 0) {
        // one block: its gradient warps wait for its own chain warps (the tickets hand out all)
        std::vector<float> rb(n + 2 + tiles, 0.0f);
        if (w == "deepf") launch(1, 1, 32 * (4 + 4), [&] { deepf_body<4, 64, 16, 4>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        if (w == "deepfd") launch(1, 1, 32 * (4 + 8), [&] { deepf_body<4, 32, 16, 2>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        for (int i = 0; i < len; ++i)
          if (memcmp(&rbuf[i], &rb[i], 4)) { printf("MISMATCH r[%d] %g %g\n", i, rbuf[i], rb[i]); ++fails; break; }
      } else if (w.rfind("deepx", 0) == 0) {
        // grid 2: the blocks run one after the other here, so the first takes every slice by
        // ticket and the second finds none (the kernel ends whatever number of blocks is resident)
        std::vector<float> rb(n + 2 + tiles, 0.0f);
        if (w == "deepx") launch(2, 1, 32 * (1 + DEEPX_SLOTS + 3), [&] { deepx_body<16, 4, true>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        if (w == "deepxb") launch(1, 1, 32 * (1 + DEEPX_SLOTS + 2), [&] { deepx_body<8, 2, false>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        for (int i = 0; i < len; ++i)
          if (memcmp(&rbuf[i], &rb[i], 4)) { printf("MISMATCH r[%d] %g %g\n", i, rbuf[i], rb[i]); ++fails; break; }
      } else if (w.rfind("deept", 0) == 0 || w.rfind("deeph", 0) == 0) {
        // deeptR_S (local_sums_sm90.cu's shapes): batches on a slice boundary only (the others run
        // deepxb); grid 2 as deepx (the second block finds no slice), 2 gradient warps
        if (start % 32 != 0) continue;
        std::vector<float> rb(n + 2 + tiles, 0.0f);
        int R = 0, S = 0;
        sscanf(w.c_str() + 5, "%d_%d", &R, &S);
#define DEEPT_EMU(RR, SS) \
  if (w[4] == 't' && R == RR && S == SS) launch(2, 1, 32 * (2 + 2), [&] { deept_body<RR, SS, 8, 4, true>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        DEEPT_EMU(64, 16)
        DEEPT_EMU(64, 24)
        DEEPT_EMU(128, 12)
        DEEPT_EMU(32, 32)
        DEEPT_EMU(64, 2)
#define DEEPH_EMU(RR, SS) \
  if (w[4] == 'h' && R == RR && S == SS) launch(2, 1, 32 * (2 + 2), [&] { deeph_body<RR, SS, 8, 4, true>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        DEEPH_EMU(64, 32)
        DEEPH_EMU(32, 64)
        DEEPH_EMU(128, 24)
        DEEPH_EMU(32, 3)
        for (int i = 0; i < len; ++i)
          if (memcmp(&rbuf[i], &rb[i], 4)) { printf("MISMATCH r[%d] %g %g\n", i, rbuf[i], rb[i]); ++fails; break; }
      } else if (w.rfind("deepw", 0) == 0) {
        // one block: its gradient warps wait for its own chain warps (the tickets hand out all)
        std::vector<float> rb(n + 2 + tiles, 0.0f);
        if (w == "deepw") launch(1, 1, 32 * (1 + 3), [&] { deepw_body<1, 32, 128, 16, 4, true>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        if (w == "deepwb") launch(1, 1, 32 * (2 + 3), [&] { deepw_body<2, 32, 64, 16, 4, true>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        if (w == "deepwd") launch(1, 1, 32 * (1 + 2), [&] { deepw_body<1, 32, 128, 8, 4, false>(X, Y, n, d, start, len, P, bias, G, tiles, rb.data()); });
        for (int i = 0; i < len; ++i)
          if (memcmp(&rbuf[i], &rb[i], 4)) { printf("MISMATCH r[%d] %g %g\n", i, rbuf[i], rb[i]); ++fails; break; }
      } else if (w == "narrow24") {
        launch(3, 1, 64, [&] { small_body<24, 2, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      } else if (w == "narrow32") {
        launch(3, 1, 64, [&] { small_body<32, 2, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      } else if (w == "narrow48") {
        launch(3, 1, 64, [&] { small_body<48, 1, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      } else if (w == "narrow24u1") {
        launch(3, 1, 64, [&] { small_body<24, 1, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      } else if (w == "narrow32u1") {
        launch(3, 1, 64, [&] { small_body<32, 1, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      } else if (W) {
        const float* XP = xp.data();
        const int grid = std::min(tiles, 3);
        g_pf_lo = reinterpret_cast<const char*>(XP);
        g_pf_hi = g_pf_lo + xp.size() * sizeof(float);
        // specW (the product's shape) or specW_fPD / specW_gPD (L2 prefetch PD turns ahead, 128- or
        // 32-byte lines)
        const size_t us = w.find('_');
        const char pk = us == std::string::npos ? 0 : w[us + 1];
        const int pd = us == std::string::npos ? 0 : atoi(w.c_str() + us + 2);
#define SPEC_EMU(WW, Q, C, A, D, S) \
  if (W == WW && !oct && pk == 0) launch(grid, 1, 32 * (C + A), [&] { spec_body<Q, C, A, D, S, true>(XP, Y, d, start, len, wp, bias, G, tiles); });
#define SPEC_EMU_PF(WW, Q, C, A, D, S, PK, PD, PS) \
  if (W == WW && !oct && pk == PK && pd == PD) launch(grid, 1, 32 * (C + A), [&] { spec_body<Q, C, A, D, S, true, PD, PS>(XP, Y, d, start, len, wp, bias, G, tiles); });
        SPEC_EMU(48, 12, 6, 6, 6, 6)
        SPEC_EMU(104, 26, 6, 13, 13, 6)
        SPEC_EMU(208, 52, 6, 13, 13, 6)
        SPEC_EMU(64, 16, 6, 8, 8, 6)
        SPEC_EMU(128, 32, 6, 8, 8, 6)
        SPEC_EMU(100, 25, 6, 25, 5, 6)
#define SPEC_EMU_C(WW, Q, C, A, D, S) \
  if (W == WW && !oct && pk == 'c' && pd == C) launch(grid, 1, 32 * (C + A), [&] { spec_body<Q, C, A, D, S, true>(XP, Y, d, start, len, wp, bias, G, tiles); });
        SPEC_EMU_C(48, 12, 7, 6, 6, 7)
        SPEC_EMU_C(64, 16, 7, 8, 8, 7)
        SPEC_EMU_C(128, 32, 7, 8, 8, 7)
        SPEC_EMU_C(104, 26, 7, 13, 13, 7)
        SPEC_EMU_C(100, 25, 7, 25, 5, 7)
#define SPEC_EMU_M(WW, Q, C, A, D, S) \
  if (W == WW && !oct && pk == 'm' && pd == D) launch(grid, 1, 32 * (C + A), [&] { spec_body<Q, C, A, D, S, true>(XP, Y, d, start, len, wp, bias, G, tiles); });
        SPEC_EMU_M(48, 12, 6, 6, 6, 6)
        SPEC_EMU_M(64, 16, 6, 8, 8, 6)
        SPEC_EMU_M(64, 16, 6, 8, 4, 6)
        SPEC_EMU_M(128, 32, 6, 8, 8, 6)
        SPEC_EMU_M(128, 32, 6, 8, 4, 6)
        SPEC_EMU_PF(48, 12, 6, 6, 6, 6, 'f', 1, 128)
        SPEC_EMU_PF(48, 12, 6, 6, 6, 6, 'g', 1, 32)
        SPEC_EMU_PF(64, 16, 6, 8, 8, 6, 'f', 1, 128)
        SPEC_EMU_PF(64, 16, 6, 8, 8, 6, 'g', 1, 32)
        SPEC_EMU_PF(64, 16, 6, 8, 8, 6, 'f', 2, 128)
        SPEC_EMU_PF(104, 26, 6, 13, 13, 6, 'f', 1, 128)
        SPEC_EMU_PF(104, 26, 6, 13, 13, 6, 'g', 1, 32)
        SPEC_EMU_PF(128, 32, 6, 8, 8, 6, 'f', 1, 128)
        SPEC_EMU_PF(128, 32, 6, 8, 8, 6, 'g', 1, 32)
#define WIDE2_EMU(WW, Q, C, D, TS) \
  if (W == WW && oct && w.rfind("wide2_", 0) == 0) launch(grid, 1, 32 * (C + 8), [&] { wide2_body<Q, C, 8, D, TS>(XP, Y, d, start, len, P, bias, G, tiles); });
        WIDE2_EMU(384, 96, 4, 4, 4)
        WIDE2_EMU(512, 128, 6, 8, 2)
        WIDE2_EMU(640, 160, 5, 8, 2)
        WIDE2_EMU(768, 192, 4, 8, 2)
        WIDE2_EMU(896, 224, 3, 8, 2)
        WIDE2_EMU(1024, 256, 3, 8, 2)
        std::vector<float> wpad(W, 0.0f);  // widel: the weights zero-padded to W
        for (int j = 0; j < d; ++j) wpad[j] = params[j];
        const float* WP = wpad.data();
#define WIDET_EMU(WW, Q, C, TS, S) \
  if (W == WW && TC == C && TT == TS && !quart && sfx.empty() && w.rfind("widet", 0) == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S>(XP, Y, d, start, len, P, bias, G, tiles); });
#define WIDEL_EMU(WW, Q, C, TS, S) \
  if (W == WW && TC == C && TT == TS && !quart && sfx.empty() && w.rfind("widel", 0) == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, true>(XP, Y, d, start, len, P, bias, G, tiles, WP); });
#define WIDETQ_EMU(WW, Q, C, TS, S) \
  if (W == WW && TC == C && TT == TS && quart && w.rfind("widetq", 0) == 0 && w.back() != 'p' && start % 32 == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, false, 4>(XP, Y, d, start, len, P, bias, G, tiles); });
#define WIDELQ_EMU(WW, Q, C, TS, S) \
  if (W == WW && TC == C && TT == TS && quart && w.rfind("widelq", 0) == 0 && start % 32 == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, true, 4>(XP, Y, d, start, len, P, bias, G, tiles, WP); });
        // local_sums_sm90.cu's shapes, and few slots (S = (C - 1) TS + 1, the least) to stress the ring
        WIDETQ_EMU(1024, 256, 1, 8, 13)
        WIDETQ_EMU(1024, 256, 2, 4, 13)
        WIDETQ_EMU(1024, 256, 3, 2, 13)
        WIDETQ_EMU(1024, 256, 4, 2, 13)
        WIDETQ_EMU(1024, 256, 2, 3, 13)
        WIDETQ_EMU(1024, 256, 3, 3, 13)
        WIDELQ_EMU(1024, 256, 2, 4, 14)
        WIDELQ_EMU(1024, 256, 1, 8, 14)
        WIDETQ_EMU(1536, 384, 1, 4, 9)
        WIDETQ_EMU(1536, 384, 2, 2, 9)
        WIDETQ_EMU(1536, 384, 2, 3, 9)
        WIDETQ_EMU(1536, 384, 1, 6, 9)
        WIDETQ_EMU(2048, 512, 1, 4, 6)
        WIDETQ_EMU(2048, 512, 2, 2, 6)
        WIDETQ_EMU(2048, 512, 1, 5, 6)
        WIDETQ_EMU(2048, 512, 2, 3, 6)
        WIDETQ_EMU(2048, 512, 3, 2, 6)
        WIDELQ_EMU(2048, 512, 1, 4, 7)
        WIDELQ_EMU(2048, 512, 2, 3, 7)
        WIDELQ_EMU(2048, 512, 1, 6, 7)
#define WIDEC_EMU(NC, WW, Q, C, TS, S, RC) \
  if (NCv == NC && W == NC * WW && TC == C && TT == TS && RCv == RC && w.rfind("widec", 0) == 0) { \
    launch_cluster(NC * std::min(tiles, 2), NC, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, false, 8, 0, NC, RC>(XP, Y, d, start, len, P, bias, G, tiles); }); \
    std::vector<double> g1 = got; \
    launch_cluster(NC * 3, NC, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, false, 8, 0, NC, RC>(XP, Y, d, start, len, P, bias, G, tiles); }); \
    if (!same(g1, got, d + 2, tiles, "widec grid 2 vs 3 clusters")) ++fails; \
    if (!same(ref, got, d + 2, tiles, "widec (S = " #S ", RC = " #RC ") against the two passes")) ++fails; \
  }
        // local_sums_sm90.cu's widec shapes (clusters of 2), few slots (S = (C - 1) TS + 1) to
        // stress the ring, and clusters of 3 and 4 (the body takes any NC; the card has run 4 and 8)
        WIDEC_EMU(2, 640, 160, 3, 2, 10, 0)
        WIDEC_EMU(2, 768, 192, 2, 4, 8, 0)
        WIDEC_EMU(2, 896, 224, 3, 2, 7, 0)
        WIDEC_EMU(2, 1024, 256, 3, 2, 6, 0)
        WIDEC_EMU(2, 512, 128, 2, 4, 13, 0)
        WIDEC_EMU(2, 512, 128, 3, 2, 13, 0)
        WIDEC_EMU(2, 512, 128, 2, 4, 5, 0)
        WIDEC_EMU(4, 512, 128, 2, 4, 13, 0)
        WIDEC_EMU(4, 512, 128, 3, 2, 5, 0)
        WIDEC_EMU(3, 384, 96, 2, 4, 18, 0)
        // the rolled chain (widecN_W_CxTrRC; the product rolls widet_o_1024_3x2 and
        // widec_o_2x1024_3x2 with RC 4): RC 4 and 8, clusters of 1 and 2
        WIDEC_EMU(1, 1024, 256, 3, 2, 6, 4)
        WIDEC_EMU(1, 1024, 256, 3, 2, 6, 8)
        WIDEC_EMU(2, 640, 160, 3, 2, 10, 4)
        WIDEC_EMU(2, 1024, 256, 3, 2, 6, 4)
        WIDEC_EMU(1, 1024, 256, 2, 2, 6, 4)  // the ladder's widet_o_1024_2x2
        WIDEC_EMU(1, 896, 224, 2, 2, 7, 4)   // the ladder's widet_o_896_2x2
#define WIDETQP_EMU(WW, Q, C, TS, S) \
  if (W == WW && TC == C && TT == TS && quart && w.rfind("widetq", 0) == 0 && w.back() == 'p' && start % 32 == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, false, 4, 4>(XP, Y, d, start, len, P, bias, G, tiles); });
        WIDETQP_EMU(1024, 256, 1, 8, 13)
        WIDETQP_EMU(1024, 256, 2, 4, 13)
        WIDETQP_EMU(2048, 512, 2, 3, 6)
        WIDETQ_EMU(1024, 256, 2, 2, 3)
        WIDETQ_EMU(2048, 512, 2, 1, 2)
        if (quart && start % 32 != 0) {
          // the fallback: the two passes over the quartet layout (resid4_o, grad4_o)
          std::vector<float> rq(len);
          launch(2, 1, 256, [&] { resid_body<true, true, 4>(XP, Y, n, d, start, len, P, bias, G, tiles, rq.data()); });
          launch(std::min(tiles, 3), (d + 7) / 8, 256, [&] { grad_body<true, true, 4>(XP, n, d, start, len, G, tiles, rq.data()); });
        }
        WIDET_EMU(384, 96, 2, 4, 18)
        WIDET_EMU(384, 96, 4, 2, 18)
        WIDET_EMU(512, 128, 2, 4, 13)
        WIDET_EMU(640, 160, 3, 2, 10)
        WIDET_EMU(768, 192, 2, 4, 8)
        WIDET_EMU(896, 224, 2, 3, 7)
        WIDET_EMU(896, 224, 2, 4, 7)
        WIDET_EMU(1024, 256, 3, 2, 6)
        WIDET_EMU(1024, 256, 2, 4, 6)
        WIDEL_EMU(896, 224, 2, 4, 8)
        WIDEL_EMU(1024, 256, 3, 2, 7)
        WIDEL_EMU(640, 160, 2, 4, 11)
        // the butterfly group tree (g: WIDETG_KERNEL, for comparison; the others reduce-scatter)
#define WIDETG_EMU(WW, Q, C, TS, S, RC) \
  if (W == WW && TC == C && TT == TS && !quart && sfx == "g" && w.rfind("widet", 0) == 0) launch(grid, 1, 32 * (C + 9), [&] { widet_body<Q, C, 8, TS, S, false, 8, 0, 1, RC, true>(XP, Y, d, start, len, P, bias, G, tiles); });
        WIDETG_EMU(1024, 256, 2, 2, 6, 4)
        WIDETG_EMU(1024, 256, 3, 2, 6, 4)
        WIDETG_EMU(896, 224, 3, 2, 7, 0)
        WIDETG_EMU(768, 192, 2, 4, 8, 0)
        WIDETG_EMU(640, 160, 3, 2, 10, 0)
        WIDETG_EMU(512, 128, 2, 4, 13, 0)
        WIDETG_EMU(384, 96, 2, 4, 18, 0)
        if (W == 384 && oct && w == "wide384") launch(grid, 1, 32 * 14, [&] { wide_body<96, 6, 8, 12, false>(XP, Y, d, start, len, P, bias, G, tiles); });
        if (W == 384 && oct && w == "widea384") launch(grid, 1, 32 * 14, [&] { wide_body<96, 6, 8, 12, false, true>(XP, Y, d, start, len, P, bias, G, tiles); });
      } else if (w.rfind("specp", 0) == 0) {
        // the plain-layout spec: specpDM_CxAmMB, whole batches that start on a
        // slice boundary (the others run the split kernel)
        if (start % 32 == 0) {
          int DMv = 0, Cv = 0, Av = 0;
          sscanf(w.c_str() + 5, "%d_%dx%d", &DMv, &Cv, &Av);
          const int grid = std::min(tiles, 3);
#define SPECP_EMU(DD, CC, AA) \
  if (DMv == DD && Cv == CC && Av == AA) launch(grid, 1, 32 * (CC + AA), [&] { specp_body<DD, CC, AA>(X, Y, d, start, len, wp, bias, G, tiles); });
          SPECP_EMU(20, 6, 5)
          SPECP_EMU(24, 6, 6)
          SPECP_EMU(24, 4, 6)
          SPECP_EMU(24, 6, 3)
          SPECP_EMU(24, 7, 3)
          SPECP_EMU(20, 7, 5)
          SPECP_EMU(32, 6, 8)
        } else {
          continue;
        }
      } else if (w.rfind("split", 0) == 0) {
        // split chain: splitK_F_U_T[p] (the shapes of local_sums.cu / comparison_sums.cu)
        int K = 0, F = 0, U = 0, T = 0, used = 0;
        sscanf(w.c_str() + 5, "%d_%d_%d_%d%n", &K, &F, &U, &T, &used);
        // then [p][fPD|gPD]: the next group loaded ahead; the L2 prefetch PD groups ahead
        const char* rest = w.c_str() + 5 + used;
        const char p = *rest == 'p' ? 'p' : 0;
        if (p) ++rest;
        const char pk = (*rest == 'f' || *rest == 'g') ? *rest : 0;
        const int pd = pk ? atoi(rest + 1) : 0;
        const int grid = std::min((tiles + T - 1) / T, 2);
        g_pf_lo = reinterpret_cast<const char*>(X);
        g_pf_hi = g_pf_lo + x.size() * sizeof(float);
#define SPLIT_EMU_PF(KK, FF, UU, TT, PF, PK, PD, PS) \
  if (K == KK && F == FF && U == UU && T == TT && (p == 'p') == PF && pk == PK && pd == PD) launch(grid, 1, 32 * KK * TT, [&] { split_body<KK, FF, UU, TT, PF, PD, PS>(X, Y, d, start, len, P, bias, G, tiles); });
        SPLIT_EMU_PF(2, 9, 8, 4, false, 'f', 1, 128)
        SPLIT_EMU_PF(2, 9, 8, 4, false, 'g', 1, 32)
        SPLIT_EMU_PF(2, 9, 8, 4, false, 'f', 2, 128)
        SPLIT_EMU_PF(2, 12, 2, 4, true, 'f', 2, 128)
        SPLIT_EMU_PF(2, 16, 2, 4, true, 'f', 2, 128)
        SPLIT_EMU_PF(4, 12, 2, 2, true, 'f', 2, 128)
        SPLIT_EMU_PF(4, 12, 2, 2, true, 'g', 2, 32)
        SPLIT_EMU_PF(4, 16, 2, 3, true, 'f', 2, 128)
#define SPLIT_EMU(KK, FF, UU, TT, PF) \
  if (K == KK && F == FF && U == UU && T == TT && (p == 'p') == PF && pk == 0) launch(grid, 1, 32 * KK * TT, [&] { split_body<KK, FF, UU, TT, PF>(X, Y, d, start, len, P, bias, G, tiles); });
        SPLIT_EMU(2, 16, 4, 4, false)
        SPLIT_EMU(2, 16, 2, 4, true)
        SPLIT_EMU(2, 12, 4, 4, false)
        SPLIT_EMU(4, 8, 4, 2, false)
        SPLIT_EMU(3, 16, 4, 2, false)
        SPLIT_EMU(4, 12, 4, 2, false)
        SPLIT_EMU(4, 16, 4, 2, false)
        SPLIT_EMU(4, 16, 2, 2, true)
        SPLIT_EMU(7, 16, 4, 2, false)
        SPLIT_EMU(8, 13, 4, 1, false)
        SPLIT_EMU(8, 16, 4, 1, false)
        SPLIT_EMU(2, 9, 8, 4, false)
        SPLIT_EMU(2, 9, 4, 4, true)
        SPLIT_EMU(2, 12, 2, 4, true)
        SPLIT_EMU(2, 16, 2, 3, true)
        SPLIT_EMU(3, 16, 2, 5, true)
        SPLIT_EMU(4, 12, 2, 2, true)
        SPLIT_EMU(4, 16, 2, 3, true)
        SPLIT_EMU(3, 6, 8, 5, false)
        SPLIT_EMU(3, 8, 8, 5, false)
        SPLIT_EMU(4, 8, 4, 2, true)
        SPLIT_EMU(6, 8, 4, 2, true)
        SPLIT_EMU(8, 8, 8, 1, false)
      } else if (w.rfind("narrowp", 0) == 0) {
        // narrowpDM_uU[p]: a warp per tile, blocks of one warp as the card runs
        // them (3 warps: several tiles a warp) and, the same body, 2 blocks of 2 warps
        int DMv = 0, Uv = 0, used = 0;
        sscanf(w.c_str() + 7, "%d_u%d%n", &DMv, &Uv, &used);
        const bool pf = w.c_str()[7 + used] == 'p';
#define NARROWP_EMU(DD, UU, PF) \
  if (DMv == DD && Uv == UU && pf == PF) { \
    launch(3, 1, 32, [&] { narrowp_body<DD, UU, PF>(X, Y, d, start, len, wp, bias, G, tiles); }); \
    std::vector<double> g1 = got; \
    launch(2, 1, 64, [&] { narrowp_body<DD, UU, PF>(X, Y, d, start, len, wp, bias, G, tiles); }); \
    if (!same(g1, got, d + 2, tiles, "narrowp grid 3x32 vs 2x64")) ++fails; \
  }
        NARROWP_EMU(17, 4, false)
        NARROWP_EMU(17, 2, true)
        NARROWP_EMU(17, 8, false)
        NARROWP_EMU(17, 4, true)
        NARROWP_EMU(18, 4, false)
        NARROWP_EMU(18, 2, true)
        NARROWP_EMU(20, 4, false)
        NARROWP_EMU(20, 2, true)
        NARROWP_EMU(24, 4, false)
        NARROWP_EMU(24, 2, true)
        NARROWP_EMU(17, 1, true)
        NARROWP_EMU(20, 1, true)
        NARROWP_EMU(24, 1, true)
        NARROWP_EMU(32, 1, true)
        // the product's 32_u1p at 25..32, comparison shapes at 25..48
        NARROWP_EMU(28, 1, false)
        NARROWP_EMU(32, 1, false)
        NARROWP_EMU(40, 1, false)
        NARROWP_EMU(48, 1, false)
        NARROWP_EMU(48, 1, true)
        NARROWP_EMU(40, 1, true)
      } else if (w == "narrow64") {
        launch(3, 1, 64, [&] { small_body<64, 1, true>(X, Y, d, start, len, wp, wp.b, bias, G, tiles); });
      }
      char what[200];
      snprintf(what, sizeof what, "%s d=%d n=%d bias=%d batch [%d,+%d)", which, d, n, bias, start, len);
      int nonfinite = 0;
      for (double v : ref) if (!std::isfinite(v)) ++nonfinite;
      if (nonfinite) printf("note: %d of %zu reference values not finite\n", nonfinite, ref.size());
      if (g_pf_outside) { printf("PREFETCH OUTSIDE x: %ld of %ld (%s)\n", (long)g_pf_outside, (long)g_pf_count, what); ++fails; g_pf_outside = 0; }
      if (g_pf_count) { printf("prefetches: %ld\n", (long)g_pf_count); g_pf_count = 0; }
      if (!same(ref, got, coords, tiles, what)) ++fails;
      else printf("ok %s\n", what);
    }
  }
  return fails ? 1 : 0;
}
