#pragma once
// Loss functions, as torch::nn::functional's:
//   namespace F = ember::nn::functional;
//   F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().label_smoothing(0.1));
// Shapes: class scores are (N, C) or (N, C, d1, ...) (or (C) with a 0-d
// target), class-index targets int64 (N) or (N, d1, ...). The elementwise
// losses take input and target of one shape (mse, l1 and smooth_l1 broadcast
// them, as PyTorch). Every loss is differentiable with respect to its input
// (and the target where the maths allows: mse, l1, smooth_l1, the BCEs),
// twice over: the cross_entropy's fused backward falls back to ember ops
// under create_graph.
#include "ember/core/tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

// mean/sum/none of (input - target)^2.
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});

// mean/sum/none of |input - target|.
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});

// Quadratic below beta, linear above (Huber loss divided by beta).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {});

// -weight[t] * input[n, t] for class t = target[n]; targets equal to
// ignore_index add nothing. kMean divides by the summed weights of the
// targets that count (their number without weight); no target counting gives NaN.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});

// log_softmax over the class dim (1) followed by nll_loss, in one fused CPU
// kernel. With label_smoothing e, each counted target's loss is
//   (1 - e) * nll + e / C * sum_c weight[c] * -log_softmax(input)[c]
// and kMean divides both parts by the summed weight[target], as PyTorch.
// A floating target of the input's shape holds class probabilities instead
// (ignore_index does not apply; kMean divides by N * d1 * ...).
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});

// -weight * (target * log(input) + (1 - target) * log(1 - input)), input in
// [0, 1] and each log clamped to >= -100 (so input 0 or 1 gives a finite loss).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});

// binary_cross_entropy(sigmoid(input), target) without overflow for large
// |input|; pos_weight scales the positive term:
//   -weight * (pos_weight * target * log(sigmoid(x)) + (1 - target) * log(sigmoid(-x)))
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

}  // namespace ember::nn::functional
