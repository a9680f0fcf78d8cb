#include "ember/nn/modules/multihead_attention.h"

#include <cmath>
#include <limits>

#include "ember/core/ops/factory.h"
#include "ember/core/ops/matmul.h"
#include "ember/core/ops/views.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace {

// Appends one masked-in (false / 0) key column to a mask whose last dim is keys.
Tensor with_extra_key(const Tensor& mask) {
  if (!mask.defined()) return mask;
  DimVector column(mask.sizes());
  column.back() = 1;
  return cat({mask, zeros(column, mask.options())}, -1);
}

// Applies a bool mask (true = -inf) or a floating one (added) to the scores.
Tensor apply_mask(const Tensor& scores, const Tensor& mask) {
  if (mask.scalar_type() == kBool)
    return scores.masked_fill(mask, -std::numeric_limits<double>::infinity());
  return scores + mask;
}

}  // namespace

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
  const int64_t e = options.embed_dim(), heads = options.num_heads();
  EMBER_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3 &&
                  query.size(2) == e && key.size(2) == options.kdim() &&
                  value.size(2) == options.vdim() && key.size(1) == query.size(1) &&
                  value.size(1) == query.size(1) && key.size(0) == value.size(0),
              "MultiheadAttention: expected query (L, N, ", e, "), key (S, N, ", options.kdim(),
              ") and value (S, N, ", options.vdim(), "), got query ", query.sizes(), ", key ",
              key.sizes(), " and value ", value.sizes());
  const int64_t tgt_len = query.size(0), batch = query.size(1);
  Tensor kpm = key_padding_mask, mask = attn_mask;
  if (kpm.defined())
    EMBER_CHECK((kpm.dim() == 2 && kpm.size(0) == batch && kpm.size(1) == key.size(0)),
                "MultiheadAttention: key_padding_mask must be (N, S) = [", batch, ", ",
                key.size(0), "], got ", kpm.sizes());

  // The input projections: rows [0, E), [E, 2E), [2E, 3E) of in_proj for q, k, v.
  auto part = [&](const Tensor& t, int64_t i) {
    return t.defined() ? t.narrow(0, i * e, e) : Tensor();
  };
  const Tensor wq = _qkv_same_embed_dim ? part(in_proj_weight, 0) : q_proj_weight;
  const Tensor wk = _qkv_same_embed_dim ? part(in_proj_weight, 1) : k_proj_weight;
  const Tensor wv = _qkv_same_embed_dim ? part(in_proj_weight, 2) : v_proj_weight;
  Tensor q = functional::linear(query, wq, part(in_proj_bias, 0)) /
             std::sqrt(static_cast<double>(head_dim));
  Tensor k = functional::linear(key, wk, part(in_proj_bias, 1));
  Tensor v = functional::linear(value, wv, part(in_proj_bias, 2));
  if (bias_k.defined()) {
    k = cat({k, bias_k.expand({1, batch, e})}, 0);
    v = cat({v, bias_v.expand({1, batch, e})}, 0);
    mask = with_extra_key(mask);
    kpm = with_extra_key(kpm);
  }
  // (len, N, E) -> (N * heads, len, head_dim): batch-major, head within batch.
  auto split_heads = [&](const Tensor& t) {
    return t.reshape({t.size(0), batch * heads, head_dim}).transpose(0, 1);
  };
  q = split_heads(q);
  k = split_heads(k);
  v = split_heads(v);
  if (options.add_zero_attn()) {
    k = cat({k, zeros({batch * heads, 1, head_dim}, k.options())}, 1);
    v = cat({v, zeros({batch * heads, 1, head_dim}, v.options())}, 1);
    mask = with_extra_key(mask);
    kpm = with_extra_key(kpm);
  }
  const int64_t src_len = k.size(1);

  Tensor scores = bmm(q, k.transpose(1, 2));  // (N * heads, L, S)
  if (mask.defined()) {
    const bool ok = (mask.dim() == 2 || (mask.dim() == 3 && mask.size(0) == batch * heads)) &&
                    mask.size(-2) == tgt_len && mask.size(-1) == src_len;
    EMBER_CHECK(ok, "MultiheadAttention: attn_mask must be (L, S) = [", tgt_len, ", ", src_len,
                "] or (N * num_heads, L, S), got ", mask.sizes());
    scores = apply_mask(scores, mask);
  }
  if (kpm.defined()) {
    scores = apply_mask(scores.view({batch, heads, tgt_len, src_len}),
                        kpm.view({batch, 1, 1, src_len}))
                 .view({batch * heads, tgt_len, src_len});
  }
  Tensor weights = scores.softmax(-1);
  weights = functional::dropout(
      weights, functional::DropoutFuncOptions().p(options.dropout()).training(is_training()));

  const Tensor heads_out = bmm(weights, v);  // (N * heads, L, head_dim)
  const Tensor out = out_proj->forward(heads_out.transpose(0, 1).reshape({tgt_len, batch, e}));
  if (!need_weights) return {out, Tensor()};
  const Tensor per_head = weights.view({batch, heads, tgt_len, src_len});
  return {out, average_attn_weights ? per_head.mean({1}) : per_head};
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << "MultiheadAttention(embed_dim=" << options.embed_dim()
         << ", num_heads=" << options.num_heads() << ")";
}

}  // namespace ember::nn
