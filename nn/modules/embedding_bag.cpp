#include "ember/nn/modules/embedding_bag.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/functional/embedding_bag.h"
#include "ember/nn/init.h"

namespace ember::nn {

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) {
  const int64_t num = options.num_embeddings();
  EMBER_CHECK(num >= 0 && options.embedding_dim() >= 0,
              "EmbeddingBag: num_embeddings and embedding_dim must be non-negative, got ", num,
              " and ", options.embedding_dim());
  if (auto& padding_idx = options.padding_idx()) {
    EMBER_CHECK(*padding_idx >= -num && *padding_idx < num, "EmbeddingBag: padding_idx ",
                *padding_idx, " out of range for ", num, " embeddings");
    if (*padding_idx < 0) *padding_idx += num;
  }
  weight = register_parameter("weight", ember::empty({num, options.embedding_dim()}));
  reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) init::zeros_(weight[*options.padding_idx()]);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return call_with_hooks(input, [&](const Tensor& x) {
    return functional::embedding_bag(x, weight,
                                     functional::EmbeddingBagFuncOptions()
                                         .offsets(offsets)
                                         .mode(options.mode())
                                         .per_sample_weights(per_sample_weights)
                                         .include_last_offset(options.include_last_offset())
                                         .padding_idx(options.padding_idx()));
  });
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << "EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim() << ", mode=" << options.mode();
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

}  // namespace ember::nn
