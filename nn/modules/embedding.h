#pragma once
// Embedding, as torch::nn's: weight (num_embeddings, embedding_dim) ~ N(0, 1),
// the padding_idx row zero.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn {

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);

  // indices: int64 (*) -> (*, embedding_dim).
  Tensor forward(const Tensor& indices);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  Tensor weight;
};
EMBER_MODULE(Embedding);

}  // namespace ember::nn
