#pragma once
// EmbeddingBag, as torch::nn's: weight (num_embeddings, embedding_dim) ~ N(0, 1),
// the padding_idx row zero; forward reduces bags of rows (F::embedding_bag).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn {

class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);

  // input: int64 (n) with offsets, or (B, L) without -> (B, embedding_dim).
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  EmbeddingBagOptions options;
  Tensor weight;
};
EMBER_MODULE(EmbeddingBag);

}  // namespace ember::nn
