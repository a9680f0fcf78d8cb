#pragma once
// Which batch norms cuDNN takes (kernels/cuda/cudnn_batch_norm.h): plain C++,
// built in every configuration and tested on the CPU
// (tests/cuda_nn_plan_test.cpp).
#include <limits>

#include "ember/core/array_ref.h"
#include "ember/core/dtype.h"

namespace ember::cuda {

// The smallest eps sent to cuDNN: the smallest normal float32 (about
// 1.2e-38). cuDNN accepts any eps >= CUDNN_BN_MIN_EPSILON (0 in cuDNN 9) but
// computes 1 / sqrt(var + eps) as is, so a constant channel (var 0) with eps
// 0, or with an eps that float32 flushes to 0, gives inf and then NaN. ember's
// kernels define that inverse as 0 (batch_norm_invstd in
// kernels/common/normalization_functors.h: the output is the bias), so such
// an eps goes to them instead.
inline constexpr double kCudnnBatchNormMinEps = std::numeric_limits<float>::min();

// Whether cuDNN can take batch_norm of a contiguous x of this dtype and
// these sizes (N, C, *) with this eps and give ember's answer: float32 or
// float64, non-empty, N, C, the values per channel and sample and numel
// within cuDNN's ints, eps >= kCudnnBatchNormMinEps.
bool cudnn_batch_norm_takes(ScalarType dtype, IntArrayRef sizes, double eps);

}  // namespace ember::cuda
