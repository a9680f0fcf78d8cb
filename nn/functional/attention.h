#pragma once
// F::multi_head_attention_forward, as torch::nn::functional's (libtorch 1.13):
// what MultiheadAttention computes, with the weights passed in. Sequence-first:
// query (L, N, E), key (S, N, kdim), value (S, N, vdim).
//   auto [out, weights] = F::multi_head_attention_forward(q, k, v,
//       F::MultiheadAttentionForwardFuncOptions(E, heads, w_in, b_in, {}, {}, false, 0.0,
//                                               w_out, b_out).training(false));
// Each head h attends with q_h k_h^T / sqrt(E / num_heads), plus attn_mask,
// with key_padding_mask's keys left out, softmax over the keys, dropout
// (dropout_p, when training), then the weighted sum of v_h; the heads are
// concatenated and go through the output projection.
//   key_padding_mask: (N, S), true (or -inf when floating) for keys to ignore.
//   attn_mask: (L, S) or (N * num_heads, L, S), bool (true = not allowed) or
//   floating (added to the scores).
// bias_k, bias_v (1, 1, E) add one learned key and value; add_zero_attn one
// all-zero key and value (the masks get a column for each).
// Returns the output (L, N, E) and, when need_weights, the attention weights:
// (N, L, S) averaged over the heads, or (N, num_heads, L, S) without
// average_attn_weights; an undefined tensor otherwise.
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/multihead_attention.h"

namespace ember::nn::functional {

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
