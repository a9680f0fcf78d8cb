#pragma once
// Options of MultiheadAttention and of F::multi_head_attention_forward, as libtorch's.
#include <cstdint>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"

namespace ember::nn {

// embed_dim is split over num_heads heads (embed_dim % num_heads == 0); kdim
// and vdim, the key's and value's feature sizes, default to embed_dim.
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;  // on the attention weights, in training
  EMBER_ARG(bool, bias) = true;      // in_proj_bias and out_proj's bias
  EMBER_ARG(bool, add_bias_kv) = false;    // a learned extra key and value (bias_k, bias_v)
  EMBER_ARG(bool, add_zero_attn) = false;  // an extra all-zero key and value
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
};

namespace functional {

// The weights and settings of one attention call, as libtorch 1.13's:
// in_proj_weight (3E, E) and in_proj_bias (3E) hold q's, k's and v's rows in
// that order; with use_separate_proj_weight, q/k/v_proj_weight ((E, E),
// (E, kdim), (E, vdim)) replace in_proj_weight. static_k and static_v,
// (N * num_heads, S, E / num_heads), replace the projected keys and values.
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
};

}  // namespace functional

}  // namespace ember::nn
