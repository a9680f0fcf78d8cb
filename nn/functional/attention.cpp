#include "ember/nn/functional/attention.h"

#include <cmath>
#include <limits>

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/views.h"
#include "ember/nn/functional/dropout.h"

namespace ember::nn::functional {

namespace {

constexpr const char* kOp = "multi_head_attention_forward";

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

Tensor rows(const Tensor& t, int64_t part, int64_t e) {
  return t.defined() ? t.narrow(0, part * e, e) : Tensor();
}

// A projection weight (E, in) for an input with `in` features.
void check_projection(const Tensor& w, const char* name, int64_t e, const Tensor& input,
                      const char* input_name) {
  EMBER_CHECK(w.defined() && w.dim() == 2 && w.size(0) == e && w.size(1) == input.size(2), kOp,
              ": ", name, " must be (", e, ", ", input.size(2), ") for ", input_name, " ",
              input.sizes(), ", got ", w.defined() ? w.sizes() : IntArrayRef{});
}

// A precomputed key or value (N * heads, S, head_dim) replacing the projected one.
Tensor static_or(const Tensor& projected, const Tensor& fixed, const char* name,
                 int64_t batch_heads, int64_t head_dim) {
  if (!fixed.defined()) return projected;
  EMBER_CHECK(fixed.dim() == 3 && fixed.size(0) == batch_heads && fixed.size(2) == head_dim, kOp,
              ": ", name, " must be (N * num_heads, S, head_dim) = [", batch_heads, ", S, ",
              head_dim, "], got ", fixed.sizes());
  return fixed;
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options) {
  const int64_t e = options.embed_dim_to_check(), heads = options.num_heads();
  EMBER_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3 && query.size(2) == e &&
                  key.size(1) == query.size(1) && value.size(1) == query.size(1) &&
                  key.size(0) == value.size(0),
              kOp, ": expected query (L, N, ", e, "), key (S, N, kdim) and value (S, N, vdim), "
              "got query ", query.sizes(), ", key ", key.sizes(), " and value ", value.sizes());
  EMBER_CHECK(heads > 0 && e % heads == 0, kOp, ": embed_dim (", e,
              ") must be a positive multiple of num_heads (", heads, ")");
  const int64_t head_dim = e / heads, tgt_len = query.size(0), batch = query.size(1);
  Tensor kpm = options.key_padding_mask(), mask = options.attn_mask();
  const int64_t keys =
      options.static_k().defined() ? options.static_k().size(-2) : key.size(0);
  if (kpm.defined())
    EMBER_CHECK(kpm.dim() == 2 && kpm.size(0) == batch && kpm.size(1) == keys, kOp,
                ": key_padding_mask must be (N, S) = [", batch, ", ", keys, "], got ",
                kpm.sizes());

  // The input projections: rows [0, E), [E, 2E), [2E, 3E) of in_proj for q, k, v.
  Tensor wq, wk, wv;
  if (options.use_separate_proj_weight()) {
    wq = options.q_proj_weight();
    wk = options.k_proj_weight();
    wv = options.v_proj_weight();
  } else {
    const Tensor& w = options.in_proj_weight();
    EMBER_CHECK(w.defined() && w.dim() == 2 && w.size(0) == 3 * e, kOp,
                ": in_proj_weight must be (3 * ", e, ", ", e, "), got ",
                w.defined() ? w.sizes() : IntArrayRef{});
    wq = rows(w, 0, e);
    wk = rows(w, 1, e);
    wv = rows(w, 2, e);
  }
  check_projection(wq, "the query projection weight", e, query, "query");
  check_projection(wk, "the key projection weight", e, key, "key");
  check_projection(wv, "the value projection weight", e, value, "value");
  const Tensor& b = options.in_proj_bias();
  Tensor q = ember::linear(query, wq, rows(b, 0, e)) / std::sqrt(static_cast<double>(head_dim));
  Tensor k = ember::linear(key, wk, rows(b, 1, e));
  Tensor v = ember::linear(value, wv, rows(b, 2, e));
  if (options.bias_k().defined() || options.bias_v().defined()) {
    EMBER_CHECK(options.bias_k().defined() && options.bias_v().defined(), kOp,
                ": bias_k and bias_v must be given together");
    EMBER_CHECK(!options.static_k().defined() && !options.static_v().defined(), kOp,
                ": bias_k and bias_v cannot be added to static_k and static_v");
    k = cat({k, options.bias_k().expand({1, batch, e})}, 0);
    v = cat({v, options.bias_v().expand({1, batch, e})}, 0);
    mask = with_extra_key(mask);
    kpm = with_extra_key(kpm);
  }
  // (len, N, E) -> (N * heads, len, head_dim): batch-major, head within batch.
  auto split_heads = [&](const Tensor& t) {
    return t.reshape({t.size(0), batch * heads, head_dim}).transpose(0, 1);
  };
  q = split_heads(q);
  k = static_or(split_heads(k), options.static_k(), "static_k", batch * heads, head_dim);
  v = static_or(split_heads(v), options.static_v(), "static_v", batch * heads, head_dim);
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
    EMBER_CHECK(ok, kOp, ": attn_mask must be (L, S) = [", tgt_len, ", ", src_len,
                "] or (N * num_heads, L, S), got ", mask.sizes());
    scores = apply_mask(scores, mask);
  }
  if (kpm.defined()) {
    scores = apply_mask(scores.view({batch, heads, tgt_len, src_len}),
                        kpm.view({batch, 1, 1, src_len}))
                 .view({batch * heads, tgt_len, src_len});
  }
  Tensor weights = scores.softmax(-1);
  weights = dropout(weights, DropoutFuncOptions().p(options.dropout_p()).training(options.training()));

  const Tensor heads_out = bmm(weights, v);  // (N * heads, L, head_dim)
  const Tensor out = ember::linear(heads_out.transpose(0, 1).reshape({tgt_len, batch, e}),
                            options.out_proj_weight(), options.out_proj_bias());
  if (!options.need_weights()) return {out, Tensor()};
  const Tensor per_head = weights.view({batch, heads, tgt_len, src_len});
  return {out, options.average_attn_weights() ? per_head.mean({1}) : per_head};
}

}  // namespace ember::nn::functional
