#include "ember/nn/modules/multihead_attention.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/init.h"

namespace ember::nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : options(options_) {
  const int64_t e = options.embed_dim(), h = options.num_heads();
  EMBER_CHECK(e > 0 && h > 0 && e % h == 0, "MultiheadAttention: embed_dim (", e,
              ") must be a positive multiple of num_heads (", h, ")");
  EMBER_CHECK(options.kdim() > 0 && options.vdim() > 0, "MultiheadAttention: kdim (",
              options.kdim(), ") and vdim (", options.vdim(), ") must be positive");
  EMBER_CHECK(options.dropout() >= 0 && options.dropout() <= 1,
              "MultiheadAttention: dropout must be in [0, 1], got ", options.dropout());
  head_dim = e / h;
  _qkv_same_embed_dim = options.kdim() == e && options.vdim() == e;
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", empty({3 * e}));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, e}));
    bias_v = register_parameter("bias_v", empty({1, 1, e}));
  }
  out_proj = register_module("out_proj", Linear(LinearOptions(e, e).bias(options.bias())));
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) {
    init::xavier_normal_(bias_k);
    init::xavier_normal_(bias_v);
  }
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights) {
  const int64_t e = options.embed_dim();
  EMBER_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3 &&
                  query.size(2) == e && key.size(2) == options.kdim() &&
                  value.size(2) == options.vdim() && key.size(1) == query.size(1) &&
                  value.size(1) == query.size(1) && key.size(0) == value.size(0),
              "MultiheadAttention: expected query (L, N, ", e, "), key (S, N, ", options.kdim(),
              ") and value (S, N, ", options.vdim(), "), got query ", query.sizes(), ", key ",
              key.sizes(), " and value ", value.sizes());
  auto call = functional::MultiheadAttentionForwardFuncOptions(
                  e, options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
                  options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias)
                  .training(is_training())
                  .key_padding_mask(key_padding_mask)
                  .need_weights(need_weights)
                  .attn_mask(attn_mask)
                  .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim)
    call.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  return functional::multi_head_attention_forward(query, key, value, call);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << "MultiheadAttention(embed_dim=" << options.embed_dim()
         << ", num_heads=" << options.num_heads() << ")";
}

}  // namespace ember::nn
