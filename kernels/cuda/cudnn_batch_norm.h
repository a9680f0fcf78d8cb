#pragma once
// Training-mode batch norm through cuDNN's legacy calls
// (cudnnBatchNormalizationForwardTraining and ...Backward, spatial mode): the
// alternative to our own kernels (normalization.h) that
// backends::cudnn::set_batch_norm_enabled(true) selects, so that the two can
// be measured against each other (benchmarks/cuda_nn_ops) and the faster one
// kept. Same contracts as normalization.h: x contiguous (N, C, *), viewed by
// cuDNN as (N, C, S, 1); weight and bias optional. The checks are compiled in
// every build (without CUDA, applies() is false); the calls only with CUDA,
// which registers them in the normalization table (kernels/common/
// normalization_kernels.h).
#include <limits>

#include "ember/core/tensor.h"
#include "ember/kernels/common/normalization_kernels.h"

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
// within cuDNN's ints, eps >= kCudnnBatchNormMinEps. Plain C++, built in every
// configuration (tests/cuda_nn_plan_test.cpp).
bool cudnn_batch_norm_takes(ScalarType dtype, IntArrayRef sizes, double eps);

// Whether batch_norm on x with eps, with these running statistics (both
// undefined, or contiguous), goes through cuDNN: the switch is on, x is on a
// CUDA device and cudnn_batch_norm_takes it. The forward and the backward of
// one call decide alike (same x and eps).
decltype(NormalizationKernels::cudnn_batch_norm_applies)::Signature cudnn_batch_norm_applies;

// y, mean and invstd (1 / sqrt(biased var + eps)) as batch_norm_train_forward;
// the running statistics, when defined, are updated in place by cuDNN:
// running = (1 - momentum) * running + momentum * batch, the unbiased
// variance for running_var (as PyTorch).
decltype(NormalizationKernels::cudnn_batch_norm_train_forward)::Signature cudnn_batch_norm_train_forward;

// Training-mode gradients from the saved batch statistics; dx, dweight and
// dbias each optional (undefined: not wanted).
decltype(NormalizationKernels::cudnn_batch_norm_backward)::Signature cudnn_batch_norm_backward;

}  // namespace ember::cuda
