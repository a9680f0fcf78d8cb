#pragma once
// Options of Embedding and F::embedding, as libtorch's.
#include <cstdint>
#include <optional>

#include "ember/nn/options/arg.h"

namespace ember::nn {

// padding_idx: that row gets no gradient (and starts at zero); negative
// counts from the end.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
}  // namespace functional
}  // namespace ember::nn
