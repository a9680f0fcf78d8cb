#pragma once
// Training-mode batch norm through cuDNN's legacy calls
// (cudnnBatchNormalizationForwardTraining and ...Backward, spatial mode): the
// alternative to our own kernels (normalization.h) that
// backends::cudnn::set_batch_norm_enabled(true) selects, so that the two can
// be measured against each other (benchmarks/cuda_nn_ops) and the faster one
// kept. Same contracts as normalization.h: x contiguous (N, C, *), viewed by
// cuDNN as (N, C, S, 1); weight and bias optional. Which inputs cuDNN takes is
// plain C++ in kernels/common/cuda_plans/cudnn_batch_norm_plan.h; the calls
// are registered in the normalization table (kernels/common/
// normalization_kernels.h).
#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/cudnn_batch_norm_plan.h"
#include "ember/kernels/common/normalization_kernels.h"

namespace ember::cuda {

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
