#pragma once
// Internal helpers of the loss files (loss.cpp, loss_classification.cpp):
// argument checks with messages that name the loss, and the reduction.
#include "ember/core/ops/nn_ops/cross_entropy.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/reduction.h"

namespace ember::nn::functional::detail {

// kNone: loss itself; kMean: its mean; kSum: its sum.
Tensor apply_reduction(const Tensor& loss, Reduction reduction);

// Same device, input floating point.
void check_loss_inputs(const char* op, const Tensor& input, const Tensor& target);

// input and target of exactly one shape (the BCE losses).
void check_same_shape(const char* op, const Tensor& input, const Tensor& target);

// An optional weight: on input's device, of input's dtype, broadcastable to input.
void check_weight(const char* op, const char* name, const Tensor& weight, const Tensor& input);

// Checks input (floating, >= 1 dims), the int64 target's shape and the (C)
// weight; returns the layout (ClassLayout: core/ops/nn_ops/cross_entropy.h). The
// target's values are checked by the kernels (cross_entropy's forward, or
// check_class_target_values), which on CUDA show the host no value.
ClassLayout check_class_targets(const char* op, const Tensor& input, const Tensor& target,
                                const Tensor& weight);

// nn's reduction as core/ops names it.
LossReduction loss_reduction(Reduction reduction);

}  // namespace ember::nn::functional::detail
