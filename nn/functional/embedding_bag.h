#pragma once
// F::embedding_bag, as torch::nn::functional::embedding_bag: the sum, mean or
// max of each bag of embedding rows, composed of index_select, index_add and
// scatter_reduce (gradients and CUDA come from those ops).
#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn::functional {

// input: int64 (n) with options.offsets() (B) (B + 1 with include_last_offset),
// or int64 (B, L) whose rows are the bags; weight: (num_embeddings, dim) ->
// (B, dim). An empty bag gives zeros. Offsets are read on the host (a sync on CUDA).
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});

}  // namespace ember::nn::functional
