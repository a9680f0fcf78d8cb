#include "ember/nn/modules/embedding.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/init.h"

namespace ember::nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  const int64_t num = options.num_embeddings();
  EMBER_CHECK(num >= 0 && options.embedding_dim() >= 0,
              "Embedding: num_embeddings and embedding_dim must be non-negative, got ", num,
              " and ", options.embedding_dim());
  if (auto& padding_idx = options.padding_idx()) {
    EMBER_CHECK(*padding_idx >= -num && *padding_idx < num, "Embedding: padding_idx ",
                *padding_idx, " out of range for ", num, " embeddings");
    if (*padding_idx < 0) *padding_idx += num;
  }
  weight = register_parameter("weight", ember::empty({num, options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) init::zeros_(weight[*options.padding_idx()]);
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return call_with_hooks(indices, [this](const Tensor& x) {
    return functional::embedding(
        x, weight, functional::EmbeddingFuncOptions().padding_idx(options.padding_idx()));
  });
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

}  // namespace ember::nn
