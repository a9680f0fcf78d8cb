#pragma once
// The CPU entry points of the normalization family (kernels/common/
// normalization_kernels.h says what each computes and what the op has
// checked), registered in kernels/cpu/register_kernels.cpp. Statistics come
// from sums of (x - shift), shift the first value of the channel or row, so a
// large mean does not cancel the variance away; short partial sums in T,
// totals in double.
#include "ember/core/tensor.h"
#include "ember/kernels/common/normalization_kernels.h"

namespace ember::cpu {

// ---- batch norm: x, y, dy, dx: (N, C, S); per-channel tensors: (C) ----

// Training: mean and biased var of each channel over N and S, invstd =
// 1/sqrt(var + eps), y = (x - mean) * invstd * weight + bias. One task per
// channel reads it twice (statistics, then output) while it is in cache.
decltype(NormalizationKernels::batch_norm_train_forward)::Signature batch_norm_train_forward;
// y = (x - mean) * invstd * weight + bias with given statistics.
decltype(NormalizationKernels::batch_norm_apply)::Signature batch_norm_apply;
// Gradients from dy; any of dx, dweight, dbias may be undefined (not needed).
// training: mean and invstd are the batch's (dx sees their dependence on x);
// else they are constants.
decltype(NormalizationKernels::batch_norm_backward)::Signature batch_norm_backward;
// The same two for relu(batch_norm(x)) in training.
decltype(NormalizationKernels::batch_norm_relu_train_forward)::Signature
    batch_norm_relu_train_forward;
decltype(NormalizationKernels::batch_norm_relu_backward)::Signature batch_norm_relu_backward;

// ---- layer norm: x, y, dy, dx: M rows of K (any shape); mean, rstd: (M); weight, bias: K ----

decltype(NormalizationKernels::layer_norm_forward)::Signature layer_norm_forward;
decltype(NormalizationKernels::layer_norm_backward)::Signature layer_norm_backward;

}  // namespace ember::cpu
