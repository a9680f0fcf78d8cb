#pragma once
// cross_entropy over class indices, the kernel-backed classification loss:
// its forward and backward run the fused kernels of the cross-entropy table
// (kernels/common/cross_entropy_kernels.h) on either device. The losses of
// nn::functional (nn/functional/loss_classification.cpp) check their
// arguments, with messages naming the loss, and call these (an internal
// header, not in ember.h: nn's losses are the public API).
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

// How class scores (N, C, d1, ...) split around the class dim for class-index
// targets (N, d1, ...); a 1-d input (C) takes a 0-d target.
struct ClassLayout {
  int64_t class_dim = 1;
  int64_t outer = 1, classes = 0, inner = 1;
};

// How a loss reduces its per-target values (nn's Reduction, which core/ops
// does not include).
enum class LossReduction { kNone, kMean, kSum };

// The cross-entropy of class scores `input` (float32 or float64, split as
// `layout` says) against int64 class indices `target`, with an optional (C)
// class `weight` of input's dtype on input's device, ignore_index and label
// smoothing in [0, 1] (the formula: kernels/common/cross_entropy_kernels.h).
// kNone: the per-target losses (target's shape); kSum: their sum; kMean: their
// sum over the summed weights of the counted targets (NaN when none counts,
// as PyTorch). The caller has checked the shapes, dtypes and devices; a target
// value outside [0, C) that is not ignore_index raises an Error naming
// cross_entropy (from a CUDA tensor: at a later CUDA call, without a sync).
// Differentiable in input; under create_graph the gradient is written with
// ember ops, so it can be differentiated again.
Tensor cross_entropy_class_indices(const Tensor& input, const Tensor& target,
                                   const Tensor& weight, const ClassLayout& layout,
                                   int64_t ignore_index, double label_smoothing,
                                   LossReduction reduction);

// Raises an Error naming `op` (a string literal) for a value of the int64
// `target` outside [0, classes) that is not ignore_index; from a CUDA tensor
// at a later CUDA call, without a sync (kernels/cuda/indexing.h).
void check_class_target_values(const char* op, const Tensor& target, int64_t classes,
                               int64_t ignore_index);

// The target with ignored entries replaced by class 0 (safe to gather with),
// and the weight of each target: weight[t] (1 without weight), 0 where
// ignored. No grad.
struct ClassTargetWeights {
  Tensor counted;  // bool, target's shape: not ignore_index
  Tensor safe_target;
  Tensor weight;  // target's shape, of options' dtype
};
ClassTargetWeights class_target_weights(const Tensor& target, const Tensor& class_weight,
                                        int64_t ignore_index, const TensorOptions& options);


// A (C) class weight, detached, viewed to broadcast along the class dim of an
// input of `ndim` dims.
Tensor class_weight_view(const Tensor& weight, int64_t class_dim, int64_t ndim);

}  // namespace ember
