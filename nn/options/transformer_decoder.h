#pragma once
// Options of TransformerDecoderLayer, as libtorch 1.13's (TransformerDecoderOptions
// is in modules/transformer_decoder.h: it holds a layer).
#include <cstdint>

#include "ember/nn/options/transformer.h"

namespace ember::nn {

// Post-norm, sequence-first: tgt (T, N, d_model), memory (S, N, d_model).
struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = kReLU;
};

}  // namespace ember::nn
