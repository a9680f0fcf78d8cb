#pragma once
// cosine_similarity and pairwise_distance, as torch::nn::functional's:
//   F::cosine_similarity(x1, x2, F::CosineSimilarityFuncOptions().dim(-1));
// Both broadcast x1 against x2 and are composed of ember ops.
#include "ember/core/tensor.h"
#include "ember/nn/options/distance.h"

namespace ember::nn::functional {

// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along options.dim(), as
// libtorch 1.13 (each norm is clamped, in value only: the gradient is the
// unclamped norm's).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {});

// ||x1 - x2 + eps||_p along the last dim of the broadcast shape.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {});

}  // namespace ember::nn::functional
