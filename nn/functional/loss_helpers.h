#pragma once
// Internal helpers of the loss files (loss.cpp, loss_classification.cpp):
// argument checks with messages that name the loss, and the reduction.
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

// How class scores (N, C, d1, ...) split around the class dim for class-index
// targets (N, d1, ...); a 1-d input (C) takes a 0-d target.
struct ClassLayout {
  int64_t class_dim = 1;
  int64_t outer = 1, classes = 0, inner = 1;
};

// Checks input (floating, >= 1 dims), the int64 target's shape, the (C) weight
// and, for a CPU target, every target value (in [0, C) or ignore_index);
// returns the layout. The caller has the values of a CUDA target checked on
// the device (kernels/cuda/cross_entropy.h).
ClassLayout check_class_targets(const char* op, const Tensor& input, const Tensor& target,
                                const Tensor& weight, int64_t ignore_index);

}  // namespace ember::nn::functional::detail
