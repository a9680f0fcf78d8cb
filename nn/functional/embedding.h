#pragma once
// F::embedding, as torch::nn::functional::embedding.
#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn::functional {

// indices: int64 of any shape, weight: (num_embeddings, dim) -> (*indices, dim).
// Positions holding padding_idx pass no gradient to the weight.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});

}  // namespace ember::nn::functional
