#pragma once
// The losses beyond loss.h, as torch::nn::functional's (options in
// nn/options/loss_extra.h). All are composed of ember ops, so they are
// differentiable (twice) with respect to every floating input the maths
// involves, targets included, and run on CUDA without kernels of their own.
//   F::kl_div(log_p, q, F::KLDivFuncOptions().reduction(ember::kBatchMean));
// Unless a loss says otherwise, input and target broadcast against each other
// and kNone returns the per-element losses in the broadcast shape.
#include "ember/core/tensor.h"
#include "ember/nn/options/loss_extra.h"

namespace ember::nn::functional {

// target (log(target) - input) (0 where target is 0), or with log_target
// exp(target) (target - input). kBatchMean: the sum over input.size(0);
// kMean (the mean over all elements) warns once, as libtorch.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});

// d = input - target: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); delta > 0.
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});

// log(1 + exp(-target input)), targets +-1; target broadcasts to input's shape.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options = {});

// max(0, -target (input1 - input2) + margin); all three of one number of dims.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});

// input where target == 1, max(0, margin - input) where target == -1 (both
// terms where target is neither, as libtorch).
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});

// With cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12) (sum(x2^2) + 1e-12)) over
// the last dim: 1 - cos where target == 1, max(0, cos - margin) where
// target == -1, 0 elsewhere. input (N, D) with target (N), or (D) with a 0-d target.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});

// log_input: exp(input) - target input; else input - target log(input + eps).
// full adds target log(target) - target + 0.5 log(2 pi target) where target > 1.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options = {});

// 0.5 (log(v) + (input - target)^2 / v) (+ 0.5 log(2 pi) with full), where
// v = max(var, eps) in value while the gradient passes to var unclamped (as
// PyTorch's clamp under no_grad). var has input's shape, or input's without
// the last dim, or that with a last dim of 1; it must not be negative.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options = {});

// input (N, C) (or (C), or more dims with the labels last), target of 0s and
// 1s broadcastable to it: the mean over the C labels of
//   -weight (target log(sigmoid(input)) + (1 - target) log(sigmoid(-input))),
// so kNone gives input's shape without the last dim.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});

// input (N, C) or (C), int64 target (N) or 0-d of classes y: per sample
//   sum_{i != y} weight[y] max(0, margin - input[y] + input[i])^p / C,
// p 1 or 2; kNone gives the target's shape.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options = {});

// input (N, C) or (C), int64 target of the same shape holding class indices
// up to the first negative entry (the sample's set J): per sample
//   sum_{j in J} sum_{i not in J} max(0, 1 - (input[j] - input[i])) / C;
// kNone gives (N), or 0-d for a 1-d input.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});

// max(0, margin + d(anchor, positive) - d(anchor, negative)) with
// d = pairwise_distance(p, eps); swap takes min(d(a, n), d(p, n)) as the
// negative distance. The three inputs have one number of dims.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});

// triplet_margin_loss with options.distance_function() as d (default
// pairwise_distance with its defaults).
Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    const TripletMarginWithDistanceLossFuncOptions& options = {});

}  // namespace ember::nn::functional
