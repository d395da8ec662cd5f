#pragma once

// parreg local sums on CUDA: every kernel body, one header per kernel family under local_sums/,
// included in this order (local_sums/common.cuh: the layout, the output, the build flags).
// local_sums.cu instantiates the kernels the product runs, local_sums_sm90.cuh builds on these,
// and the benchmark's comparison_sums.cu instantiates the comparison kernels.

#include "local_sums/common.cuh"
#include "local_sums/small.cuh"
#include "local_sums/large.cuh"
#include "local_sums/pipe.cuh"
#include "local_sums/flow.cuh"
#include "local_sums/spec.cuh"
#include "local_sums/specp.cuh"
#include "local_sums/split.cuh"
#include "local_sums/narrowp.cuh"
#include "local_sums/wide.cuh"
#include "local_sums/wide2.cuh"
#include "local_sums/twopass.cuh"
#include "local_sums/deep.cuh"
#include "local_sums/deepf.cuh"
#include "local_sums/deepw.cuh"
#include "local_sums/deepx.cuh"
