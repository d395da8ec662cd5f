// parreg local sums on CUDA, the kernels of compute capability 9.0 and newer (local_sums_sm90.cuh):
// a module of its own, PTX of compute_90 (scripts/build/gen-ptx.sh), loaded by CudaCard only on such
// cards. Names: widet_o_W_CxTS (slice width W features, C chain warps of TS sub-slices a task;
// the slots S are as many as fit an H200's 227 KB of shared memory at that width; a "g" after the
// shape: the group tree as a butterfly instead of a reduce-scatter, for comparison).

#include "local_sums_sm90.cuh"

// W = 384: 18 slots
WIDET_KERNEL(widet_o_384_4x2, 96, 4, 2, 18)
WIDET_KERNEL(widet_o_384_4x4, 96, 4, 4, 18)
WIDET_KERNEL(widet_o_384_2x4, 96, 2, 4, 18)
WIDET_KERNEL(widet_o_384_8x1, 96, 8, 1, 18)
WIDET_KERNEL(widet_o_384_1x4, 96, 1, 4, 18)
// W = 512: 13 slots
WIDET_KERNEL(widet_o_512_3x2, 128, 3, 2, 13)
WIDET_KERNEL(widet_o_512_4x2, 128, 4, 2, 13)
WIDET_KERNEL(widet_o_512_2x4, 128, 2, 4, 13)
WIDET_KERNEL(widet_o_512_6x1, 128, 6, 1, 13)
WIDET_KERNEL(widet_o_512_1x4, 128, 1, 4, 13)
// W = 640: 10 slots
WIDET_KERNEL(widet_o_640_3x2, 160, 3, 2, 10)
WIDET_KERNEL(widet_o_640_4x1, 160, 4, 1, 10)
WIDET_KERNEL(widet_o_640_2x4, 160, 2, 4, 10)
WIDET_KERNEL(widet_o_640_4x2, 160, 4, 2, 10)
// W = 768: 8 slots
WIDET_KERNEL(widet_o_768_2x2, 192, 2, 2, 8)
WIDET_KERNEL(widet_o_768_4x1, 192, 4, 1, 8)
WIDET_KERNEL(widet_o_768_4x2, 192, 4, 2, 8)
WIDET_KERNEL(widet_o_768_2x4, 192, 2, 4, 8)
WIDET_KERNEL(widet_o_768_1x4, 192, 1, 4, 8)
// W = 896: 7 slots
WIDET_KERNEL(widet_o_896_3x1, 224, 3, 1, 7)
// the ladder's shape at 896 (3.43 TB/s where 3 x 2 read 3.24, 2 x 3 3.32 and 2 x 2 with the chain
// unrolled 3.18; one H200, 2026-12-01), the chain rolled
WIDETR_KERNEL(widet_o_896_2x2, 224, 2, 2, 7, 4)
WIDET_KERNEL(widet_o_896_2x3, 224, 2, 3, 7)
WIDET_KERNEL(widet_o_896_1x4, 224, 1, 4, 7)
WIDET_KERNEL(widet_o_896_2x4, 224, 2, 4, 7)
WIDET_KERNEL(widet_o_896_3x2, 224, 3, 2, 7)
// W = 1,024: 6 slots
WIDET_KERNEL(widet_o_1024_3x1, 256, 3, 1, 6)
// the ladder's shape at 1,024 (3.89 / 3.94 TB/s at 1,024 / 1,000 where 3 x 2 read 3.70 / 3.82; one
// H200, 2026-12-01), the chain as a rolled loop (chain_rolled: 3 x 2 read 3.40 TB/s rolled where
// the unrolled chain read 3.14 in the same invocation), as in 3 x 2
WIDETR_KERNEL(widet_o_1024_2x2, 256, 2, 2, 6, 4)
WIDETR_KERNEL(widet_o_1024_3x2, 256, 3, 2, 6, 4)
WIDET_KERNEL(widet_o_1024_6x1, 256, 6, 1, 6)
WIDET_KERNEL(widet_o_1024_2x3, 256, 2, 3, 6)
WIDET_KERNEL(widet_o_1024_1x4, 256, 1, 4, 6)
WIDET_KERNEL(widet_o_1024_2x4, 256, 2, 4, 6)
// the group tree as a butterfly (g, WIDETG_KERNEL), for comparison with the reduce-scatter the
// others use (3.49 / 3.42 TB/s at 1,024 / 1,000 where the same kernel with the reduce-scatter read
// 3.70 / 3.82; one H200, 2026-12-01)
WIDETG_KERNEL(widet_o_1024_2x2g, 256, 2, 2, 6, 4)
WIDETG_KERNEL(widet_o_1024_3x2g, 256, 3, 2, 6, 4)
WIDETG_KERNEL(widet_o_896_3x2g, 224, 3, 2, 7, 0)
WIDETG_KERNEL(widet_o_768_2x4g, 192, 2, 4, 8, 0)
WIDETG_KERNEL(widet_o_640_3x2g, 160, 3, 2, 10, 0)
WIDETG_KERNEL(widet_o_512_2x4g, 128, 2, 4, 13, 0)
WIDETG_KERNEL(widet_o_384_2x4g, 96, 2, 4, 18, 0)
// LEAN (weights from global memory, group sums in registers): a slot more at 640 .. 1,024
WIDEL_KERNEL(widel_o_640_2x4, 160, 2, 4, 11)
WIDEL_KERNEL(widel_o_640_3x2, 160, 3, 2, 11)
WIDEL_KERNEL(widel_o_768_2x4, 192, 2, 4, 9)
WIDEL_KERNEL(widel_o_896_2x4, 224, 2, 4, 8)
WIDEL_KERNEL(widel_o_896_3x2, 224, 3, 2, 8)
WIDEL_KERNEL(widel_o_1024_3x2, 256, 3, 2, 7)
WIDEL_KERNEL(widel_o_1024_2x3, 256, 2, 3, 7)
// d > 1,024: deept_o_RxS, the copy engine feeds deepxb's chain warp (a ring of S chunks of R
// rows; one chain warp, one producer warp, 8 gradient warps of 8 features, 4 slices ahead)
DEEPT_KERNEL(deept_o_64x16, 64, 16, 8, 8, 4)
DEEPT_KERNEL(deept_o_64x24, 64, 24, 8, 8, 4)
DEEPT_KERNEL(deept_o_128x12, 128, 12, 8, 8, 4)
DEEPT_KERNEL(deept_o_32x32, 32, 32, 8, 8, 4)
// d > 1,024: deeph_o_RxS, half-slice chains (16 samples a chain warp: half deept's window)
DEEPH_KERNEL(deeph_o_64x32, 64, 32, 8, 8, 4)
DEEPH_KERNEL(deeph_o_32x64, 32, 64, 8, 8, 4)
DEEPH_KERNEL(deeph_o_128x24, 128, 24, 8, 8, 4)
// 1,024 < d <= 2,048: widec_o_2xW_CxTS, clusters of 2 widet blocks of W features each, x read
// once (widet's slots and ladder shape at width W; 2 x 3 at 2,048 a comparison shape). Clusters of
// 4 and 8 (2,048 / 4,096) are not built: 2-3 x slower than deepxb on an H200 (2026-12-01), since a
// slot of the first block is held for the chain through every block
WIDEC_KERNEL(widec_o_2x640_3x2, 2, 160, 3, 2, 10)
WIDEC_KERNEL(widec_o_2x768_2x4, 2, 192, 2, 4, 8)
WIDEC_KERNEL(widec_o_2x896_3x2, 2, 224, 3, 2, 7)
WIDECR_KERNEL(widec_o_2x1024_3x2, 2, 256, 3, 2, 6, 4)  // rolled chain: 2.36 where unrolled read 2.10
WIDEC_KERNEL(widec_o_2x1024_2x3, 2, 256, 2, 3, 6)
