#include "ember/nn/functional/embedding.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/indexing/indexing.h"

namespace ember::nn::functional {

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D (num_embeddings, dim), got ",
              weight.sizes());
  Tensor out = ember::embedding(weight, input);
  if (!options.padding_idx()) return out;
  int64_t padding_idx = *options.padding_idx();
  const int64_t num = weight.size(0);
  EMBER_CHECK(padding_idx >= -num && padding_idx < num, "embedding: padding_idx ", padding_idx,
              " out of range for ", num, " embeddings");
  if (padding_idx < 0) padding_idx += num;
  if (!out.requires_grad()) return out;
  // Same values; the backward zeroes the gradient of rows looked up at padding_idx.
  // keep: (*indices, 1), 0 where the index is padding_idx.
  const Tensor keep = (input != padding_idx).unsqueeze(-1).to(out.scalar_type());
  Tensor masked = out.detach();
  auto node = autograd::make_node(
      // derivative of embedding: with padding_idx, d/dout = g, 0 on the rows looked up at padding_idx
      "EmbeddingPaddingBackward", {out},
      [](autograd::Node& n, const tensor_list& grads) -> tensor_list {
        return {grads[0] * n.saved(0)};
      });
  node->save(keep);
  autograd::set_history(masked, node);
  return masked;
}

}  // namespace ember::nn::functional
