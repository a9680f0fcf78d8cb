#pragma once
// Options of MultiheadAttention, as libtorch's.
#include <cstdint>

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

}  // namespace ember::nn
