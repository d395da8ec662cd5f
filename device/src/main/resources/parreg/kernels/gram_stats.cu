// parreg's exact-solver statistics on CUDA (parreg.device.cuda.CudaGramPass): the pass of order
// gram-tile256-dd/v1 over the resident partition, binary32 rule. The bodies and the why are in
// gram_stats.cuh.
//
// Regenerate the PTX beside this file with scripts/build/gen-ptx.sh (never by hand).

#include "gram_stats.cuh"

// A block per (patch of entries, aligned block of 2^blockLog tiles); at most 256 threads, one
// 4 x 4 cell each; dynamic shared memory: two slice buffers of the patch's columns in binary64.
extern "C" __global__ void __launch_bounds__(256) gram_tiles_o(const float* __restrict__ x, const float* __restrict__ y,
                                                               long long n, int d, int sf, int qlog, int glog,
                                                               const int4* __restrict__ patches, int blockLog,
                                                               int tiles, double* __restrict__ outHi,
                                                               double* __restrict__ outLo) {
  extern __shared__ __align__(16) double gs_smem[];
  gram_tiles_body(x, y, n, d, sf, qlog, glog, patches, blockLog, tiles, outHi, outLo, gs_smem);
}

// The tree over the blocks' values: aligned groups of 2^groupLog values an entry, a thread an entry.
extern "C" __global__ void __launch_bounds__(128) gram_tree_o(const double* __restrict__ srcHi,
                                                              const double* __restrict__ srcLo,
                                                              double* __restrict__ dstHi, double* __restrict__ dstLo,
                                                              int count, int groupLog, long long entries) {
  gram_tree_body(srcHi, srcLo, dstHi, dstLo, count, groupLog, entries);
}
