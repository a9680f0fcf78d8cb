#pragma once
// TransformerDecoderLayer and TransformerDecoder, as libtorch 1.13's: post-norm
// and sequence-first, tgt (T, N, d_model), memory (S, N, d_model).
//   nn::TransformerDecoder decoder(nn::TransformerDecoderOptions(
//       nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(512, 8)), 6));
//   Tensor y = decoder(tgt, memory, nn::TransformerImpl::generate_square_subsequent_mask(T));
// A layer computes
//   x = norm1(x + dropout1(self_attn(x, x, x, tgt_key_padding_mask, tgt_mask)))
//   x = norm2(x + dropout2(multihead_attn(x, memory, memory, memory_key_padding_mask,
//                                         memory_mask)))
//   x = norm3(x + dropout3(linear2(dropout(activation(linear1(x))))))
// with PyTorch's submodule names, so a PyTorch state_dict loads. Module hooks
// are not run (several inputs).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/modules/container/any.h"
#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/multihead_attention.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/options/transformer_decoder.h"

namespace ember::nn {

class TransformerDecoderLayerImpl : public Module {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);

  // tgt_mask: (T, T) or (N * nhead, T, T); memory_mask: (T, S) or
  // (N * nhead, T, S); the key padding masks: (N, T) and (N, S).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  LayerNorm norm3 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
  Dropout dropout3 = nullptr;
};
EMBER_MODULE(TransformerDecoderLayer);

struct TransformerDecoderOptions {
  // The decoder holds num_layers copies of decoder_layer, each starting with
  // its weights (PyTorch's deepcopy, libtorch's clone()).
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& layer_options,
                            int64_t num_layers)
      : decoder_layer_(layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer);
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);  // applied after the last layer when set
};

class TransformerDecoderImpl : public Module {
 public:
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);

  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

}  // namespace ember::nn
