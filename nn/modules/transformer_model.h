#pragma once
// Transformer, as libtorch 1.13's: a TransformerEncoder and a
// TransformerDecoder, each ending in a LayerNorm, sequence-first.
//   nn::Transformer model(nn::TransformerOptions(512, 8, 6, 6));
//   Tensor y = model(src, tgt, {}, nn::TransformerImpl::generate_square_subsequent_mask(T));
// src (S, N, d_model), tgt (T, N, d_model) -> (T, N, d_model). Submodules as
// PyTorch's (encoder.layers.{i}, encoder.norm, decoder.layers.{i}, decoder.norm).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/modules/transformer.h"
#include "ember/nn/modules/transformer_decoder.h"
#include "ember/nn/options/transformer_model.h"

namespace ember::nn {

class TransformerImpl : public Module {
 public:
  explicit TransformerImpl(TransformerOptions options = {});

  // The masks as TransformerEncoder's (src_*) and TransformerDecoder's
  // (tgt_*, memory_*).
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  // PyTorch's: xavier_uniform_ on every parameter with more than one dim.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  // (sz, sz) float32: 0 on and below the diagonal, -inf above, so position i
  // attends to positions <= i only.
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
