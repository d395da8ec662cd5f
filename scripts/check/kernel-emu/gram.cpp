// Host emulation of the statistics kernels (gram_stats.cuh) against the order written literally
// (parreg.solver.ReferenceGramPass, binary32 rule): random binary32 data with zeros of both signs,
// subnormals and large values in the resident layouts the CUDA backend keeps (plain, quad, octet:
// ResidentLayout), the patches and launches of CudaGramPass, every entry's (hi, lo) compared bit
// for bit. It checks the order and the indexing of the source, not the card's code generation:
// CudaGramParityTest on the card stays the test.
// Usage: scripts/check/kernel-emu/run-gram.sh D N LAYOUT BLOCKLOG   (LAYOUT plain|quad|octet)
#include "shim.h"
#include "gram_stats.cuh"
#include <cstdio>
#include <random>
#include <string>
float4 sm4[1];
static double g_smem[2 * 32 * (4 * 16 + 2) * 2];

static std::mt19937_64 rng(4242);
static float mixed() {
  uint64_t k = rng() % 16;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  uint32_t bits;
  float f;
  switch (k) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: bits = (uint32_t)(rng() % 0x7fffff + 1) | ((rng() & 1) << 31); memcpy(&f, &bits, 4); return f;
    case 3: return u(rng) * 1e-30f;
    case 4: return u(rng) * 1e6f;
    case 5: return (float)(rng() % 7);
    default: return u(rng);
  }
}
static double vadd(double a, double b) { volatile double r = a + b; return r; }

int main(int argc, char** argv) {
  const int d = atoi(argv[1]);
  const long long n = atoll(argv[2]);
  const std::string layout = argv[3];
  const int blockLog = atoi(argv[4]);
  const int m = d + 2;
  const long long entries = (long long)m * (m + 1) / 2;
  const int qlog = layout == "plain" ? 0 : 2;
  const int glog = layout == "octet" ? 3 : 5;
  const int sf = qlog == 2 ? (d + 3) / 4 * 4 + 4 : d + 1;  // padding features, as some plans have
  const long long slices = (n + 31) / 32;
  std::vector<float> xs((size_t)n * d), y(n);
  for (auto& v : xs) v = mixed();
  for (auto& v : y) v = mixed();
  std::vector<float> x((size_t)slices * 32 * sf, 0.0f);
  const int G = 1 << glog, Q = 1 << qlog;
  for (long long i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      long long sl = i / 32;
      int l = i % 32;
      x[sl * 32 * sf + (l >> glog) * sf * G + (j >> qlog) * Q * G + (l & (G - 1)) * Q + (j & (Q - 1))] =
          xs[(size_t)j * n + i];
    }
  auto z = [&](int c, long long i) -> double { return c < d ? xs[(size_t)c * n + i] : c == d ? y[i] : 1.0; };
  // the reference: every tile value, then the level-by-level tree
  const long long tiles = (n + 255) / 256;
  std::vector<double> rh(std::max(tiles, 1LL) * entries, 0.0), rl(rh.size(), 0.0);
  for (long long t = 0; t < tiles; ++t)
    for (int j = 0; j < m; ++j)
      for (int k = j; k < m; ++k) {
        double acc = +0.0;
        for (long long i = 256 * t; i < std::min(n, 256 * t + 256); ++i) acc = vadd(acc, z(j, i) * z(k, i));
        rh[t * entries + gs_index(j, k, m)] = acc;
      }
  for (long long c = tiles; c > 1;) {
    long long half = c / 2;
    for (long long i = 0; i < half; ++i)
      for (long long e = 0; e < entries; ++e)
        gs_dd_add(rh[2 * i * entries + e], rl[2 * i * entries + e], rh[(2 * i + 1) * entries + e],
                  rl[(2 * i + 1) * entries + e], rh[i * entries + e], rl[i * entries + e]);
    if (c & 1)
      for (long long e = 0; e < entries; ++e) {
        rh[half * entries + e] = rh[(c - 1) * entries + e];
        rl[half * entries + e] = rl[(c - 1) * entries + e];
      }
    c = half + (c & 1);
  }
  // the kernels, with CudaGramPass's patches
  const int cr = (m + 3) / 4;
  std::vector<gs_int4> patches;
  int block;
  if (cr <= 22) {
    patches.push_back({0, 0, cr, cr});
    block = std::min(256, std::max((cr * (cr + 1) / 2 + 31) / 32 * 32, (8 * cr + 31) / 32 * 32));
  } else {
    for (int i = 0; 16 * i < cr; ++i)
      for (int j = i; 16 * j < cr; ++j)
        patches.push_back({16 * i, 16 * j, std::min(16, cr - 16 * i), std::min(16, cr - 16 * j)});
    block = 256;
  }
  const long long blocks = tiles == 0 ? 0 : ((tiles - 1) >> blockLog) + 1;
  std::vector<double> ah(std::max(blocks, 1LL) * entries, 0.0), al(ah.size(), 0.0);
  std::vector<double> bh(ah.size(), 0.0), bl(ah.size(), 0.0);
  if (blocks > 0)
    launch((int)patches.size(), (int)blocks, block, [&] {
      gram_tiles_body(x.data(), y.data(), n, d, sf, qlog, glog, patches.data(), blockLog, (int)tiles, ah.data(),
                      al.data(), g_smem);
    });
  const int groupLog = 2;
  long long count = blocks;
  double *sh = ah.data(), *sl = al.data(), *dh = bh.data(), *dl = bl.data();
  while (count > 1) {
    long long groups = ((count - 1) >> groupLog) + 1;
    launch((int)((entries + 127) / 128), (int)groups, 128,
           [&] { gram_tree_body(sh, sl, dh, dl, (int)count, groupLog, entries); });
    std::swap(sh, dh);
    std::swap(sl, dl);
    count = groups;
  }
  long long bad = 0;
  for (long long e = 0; e < entries; ++e)
    if (memcmp(&sh[e], &rh[e], 8) != 0 || memcmp(&sl[e], &rl[e], 8) != 0) {
      if (bad++ < 5) printf("MISMATCH e=%lld %.17g %.17g vs %.17g %.17g\n", e, sh[e], sl[e], rh[e], rl[e]);
    }
  printf("gram d=%d n=%lld %s blockLog=%d patches=%zu block=%d blocks=%lld: %s (%lld entries)\n", d, n,
         layout.c_str(), blockLog, patches.size(), block, blocks, bad ? "DIFFERENT" : "identical", entries);
  return bad ? 1 : 0;
}
