#pragma once
// The CUDA entry points of the normalization family's own kernels
// (kernels/common/normalization_kernels.h says what each computes and what
// the op has checked; the cuDNN ones are in cudnn_batch_norm.h), in
// kernels/cuda/normalization_kernels.cu, registered in
// kernels/cuda/register_kernels.cu. The per-channel and per-row sums are in
// double (warp shuffles, then a block reduce; batch norm splits a large
// channel over several blocks: normalization_plan.h).
#include "ember/core/tensor.h"
#include "ember/kernels/common/normalization_kernels.h"

namespace ember::cuda {

decltype(NormalizationKernels::batch_norm_train_forward)::Signature batch_norm_train_forward;
decltype(NormalizationKernels::batch_norm_apply)::Signature batch_norm_apply;
decltype(NormalizationKernels::batch_norm_backward)::Signature batch_norm_backward;

decltype(NormalizationKernels::layer_norm_forward)::Signature layer_norm_forward;
decltype(NormalizationKernels::layer_norm_backward)::Signature layer_norm_backward;

}  // namespace ember::cuda
