// Host emulation of the few CUDA built-ins local_sums.cuh uses: one block at a time, one
// std::thread per CUDA thread, barriers for __syncthreads and for each warp shuffle.
#pragma once
#define PARREG_HOST_EMU 1
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __global__
#define __shared__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
struct dim3s { unsigned x = 0, y = 0, z = 0; };
inline thread_local dim3s threadIdx, blockIdx;
inline dim3s blockDim, gridDim;
struct float4 { float x, y, z, w; };
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline int min(int a, int b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
inline unsigned __brev(unsigned v) { unsigned r = 0; for (int i = 0; i < 32; ++i) if (v & (1u << i)) r |= 1u << (31 - i); return r; }
inline int __ffs(int v) { return v == 0 ? 0 : __builtin_ffs(v); }
inline double atomicAdd(double* p, double v) { double o = *p; *p = o + v; return o; }  // unused (ordered only)
struct Warp { std::barrier<> bar{32}; double slot[32]; };
struct Block { std::unique_ptr<std::barrier<>> bar; std::vector<std::unique_ptr<Warp>> warps; };
inline thread_local Block* g_block;  // each emulated thread's block (clusters run several at once)
inline void __syncthreads() { g_block->bar->arrive_and_wait(); }
inline void __syncwarp() { g_block->warps[threadIdx.x >> 5]->bar.arrive_and_wait(); }
// bar.sync / bar.arrive: barrier id completes when count threads have arrived (each emulated
// thread counts one, as each lane does on the card); sync waits for that, arrive does not.
struct NamedBar { std::mutex mu; std::condition_variable cv; int count = 0; unsigned long gen = 0; };
inline NamedBar g_bars[16];
inline void named_bar_arrive_impl(int id, int n, bool wait) {
  NamedBar& b = g_bars[id];
  std::unique_lock<std::mutex> lk(b.mu);
  const unsigned long g = b.gen;
  if (++b.count == n) {
    b.count = 0;
    ++b.gen;
    b.cv.notify_all();
  } else if (wait) {
    b.cv.wait(lk, [&] { return b.gen != g; });
  }
}
// prefetch.L2: no value; the emulation counts the addresses outside [g_pf_lo, g_pf_hi) (the
// array the kernel reads), which on the card would be prefetches of memory not allocated.
inline const char* g_pf_lo = nullptr;
inline const char* g_pf_hi = nullptr;
inline std::atomic<long> g_pf_count{0}, g_pf_outside{0};
inline void prefetch_l2(const void* p) {
  const char* c = static_cast<const char*>(p);
  ++g_pf_count;
  if (c < g_pf_lo || c >= g_pf_hi) ++g_pf_outside;
}
inline void named_bar_sync(int id, int n) { named_bar_arrive_impl(id, n, true); }
inline void named_bar_arrive(int id, int n) { named_bar_arrive_impl(id, n, false); }
inline double __shfl_xor_sync(unsigned, double v, int m) {
  const int lane = threadIdx.x & 31;
  Warp& w = *g_block->warps[threadIdx.x >> 5];
  w.bar.arrive_and_wait();
  w.slot[lane] = v;
  w.bar.arrive_and_wait();
  const double r = w.slot[lane ^ m];
  return r;
}
// Runs f on every thread of a grid (gx, gy) of blocks of bs threads, block by block.
inline void launch(int gx, int gy, int bs, const std::function<void()>& f) {
  gridDim = {(unsigned)gx, (unsigned)gy, 1};
  blockDim = {(unsigned)bs, 1, 1};
  for (int by = 0; by < gy; ++by)
    for (int bx = 0; bx < gx; ++bx) {
      for (auto& nb : g_bars) nb.count = 0;
      Block b;
      b.bar = std::make_unique<std::barrier<>>(bs);
      for (int w = 0; w < bs / 32; ++w) b.warps.push_back(std::make_unique<Warp>());
      g_block = &b;
      std::vector<std::thread> ts;
      for (int t = 0; t < bs; ++t)
        ts.emplace_back([&, t, bx, by] {
          threadIdx = {(unsigned)t, 0, 0};
          blockIdx = {(unsigned)bx, (unsigned)by, 0};
          g_block = &b;
          f();
        });
      for (auto& t : ts) t.join();
    }
}
// the deepf kernel's tickets, fences and shuffles (threads of one block run at once)
#include <atomic>
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline float __ldcs(const float* p) { return *(volatile const float*)p; }
inline void prefetch_l2(const float*) {}
inline float __ldcg(const float* p) { std::atomic_thread_fence(std::memory_order_seq_cst); return *(volatile const float*)p; }
template <class T>
inline T __shfl_sync(unsigned, T v, int src) {
  const int lane = threadIdx.x & 31;
  Warp& w = *g_block->warps[threadIdx.x >> 5];
  w.bar.arrive_and_wait();
  w.slot[lane] = (double)v;
  w.bar.arrive_and_wait();
  const T r = (T)w.slot[src & 31];
  return r;
}
// the widet kernels' transaction barriers and bulk copies (local_sums_sm90.cuh): one state per
// barrier address; a phase completes when its arrivals and its expected bytes are all in
#include <map>
struct MBar { int count = 0, pending = 0; long tx = 0; unsigned phase = 0; };
inline std::mutex g_mb_mu;
inline std::condition_variable g_mb_cv;
inline std::map<const void*, MBar> g_mbars;
inline void mbar_check(MBar& b) {
  if (b.pending == 0 && b.tx == 0) {
    b.phase ^= 1;
    b.pending = b.count;
    g_mb_cv.notify_all();
  }
}
inline void mbar_init(unsigned long long* bar, unsigned count) {
  std::lock_guard<std::mutex> lk(g_mb_mu);
  g_mbars[bar] = MBar{(int)count, (int)count, 0, 0};
}
inline void mbar_init_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void mbar_arrive(unsigned long long* bar) {
  std::lock_guard<std::mutex> lk(g_mb_mu);
  MBar& b = g_mbars.at(bar);
  --b.pending;
  mbar_check(b);
}
inline void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  std::lock_guard<std::mutex> lk(g_mb_mu);
  MBar& b = g_mbars.at(bar);
  b.tx += bytes;
  --b.pending;
  mbar_check(b);
}
inline void mbar_wait(unsigned long long* bar, unsigned parity) {
  std::unique_lock<std::mutex> lk(g_mb_mu);
  g_mb_cv.wait(lk, [&] { return (g_mbars.at(bar).phase & 1) != parity; });
}
inline void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  memcpy(dst, src, bytes);
  std::lock_guard<std::mutex> lk(g_mb_mu);
  MBar& b = g_mbars.at(bar);
  b.tx -= bytes;
  mbar_check(b);
}
inline float4 __ldg(const float4* p) { return *p; }
// thread-block clusters (the widec kernels): the NC blocks of a cluster run at once, each with
// its own dynamic shared memory; a remote store or arrival goes to the same offset in block rank
extern float4 sm4[];
inline thread_local float4* g_smem4 = nullptr;  // this block's dynamic shared memory in a cluster
inline float4* cta_smem4() { return g_smem4 ? g_smem4 : sm4; }
inline int g_cluster = 1;
inline std::vector<float4*> g_cluster_smem;  // block rank's shared memory, the current cluster
inline std::unique_ptr<std::barrier<>> g_cluster_bar;
inline unsigned cluster_rank() { return blockIdx.x % g_cluster; }
inline void cluster_sync() { g_cluster_bar->arrive_and_wait(); }
template <class T>
inline T* cluster_map(T* p, unsigned rank) {
  const char* base = reinterpret_cast<const char*>(g_smem4);
  return reinterpret_cast<T*>(reinterpret_cast<char*>(g_cluster_smem.at(rank)) + (reinterpret_cast<const char*>(p) - base));
}
inline void st_cluster(float* p, unsigned rank, float v) {
  std::lock_guard<std::mutex> lk(g_mb_mu);  // ordered before the arrival that follows
  *cluster_map(p, rank) = v;
}
inline void mbar_arrive_cluster(unsigned long long* bar, unsigned rank) { mbar_arrive(cluster_map(bar, rank)); }
inline void mbar_wait_cluster(unsigned long long* bar, unsigned parity) { mbar_wait(bar, parity); }
// Runs f on a grid of gx blocks of bs threads in clusters of nc blocks, one cluster at a time.
inline void launch_cluster(int gx, int nc, int bs, const std::function<void()>& f) {
  gridDim = {(unsigned)gx, 1, 1};
  blockDim = {(unsigned)bs, 1, 1};
  g_cluster = nc;
  std::vector<std::vector<float4>> mem(nc, std::vector<float4>(16384));
  g_cluster_smem.clear();
  for (auto& m : mem) g_cluster_smem.push_back(m.data());
  for (int c = 0; c < gx / nc; ++c) {
    g_cluster_bar = std::make_unique<std::barrier<>>(nc * bs);
    std::vector<Block> blocks(nc);
    for (auto& b : blocks) {
      b.bar = std::make_unique<std::barrier<>>(bs);
      for (int w = 0; w < bs / 32; ++w) b.warps.push_back(std::make_unique<Warp>());
    }
    std::vector<std::thread> ts;
    for (int r = 0; r < nc; ++r)
      for (int t = 0; t < bs; ++t)
        ts.emplace_back([&, t, r, c] {
          threadIdx = {(unsigned)t, 0, 0};
          blockIdx = {(unsigned)(c * nc + r), 0, 0};
          g_block = &blocks[r];
          g_smem4 = g_cluster_smem[r];
          f();
        });
    for (auto& t : ts) t.join();
  }
  g_cluster = 1;
}
