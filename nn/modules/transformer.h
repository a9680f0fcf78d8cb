#pragma once
// TransformerEncoderLayer and TransformerEncoder, as libtorch 1.13's: post-norm
// and sequence-first, src (S, N, d_model).
//   nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(
//       nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(512, 8)), 6));
//   Tensor y = encoder(src, mask);
// A layer computes
//   x = norm1(x + dropout1(self_attn(x, x, x, src_key_padding_mask, src_mask)))
//   x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))
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
#include "ember/nn/options/transformer.h"

namespace ember::nn {

class TransformerEncoderLayerImpl : public Module {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);

  // src_mask: (S, S) or (N * nhead, S, S); src_key_padding_mask: (N, S).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

struct TransformerEncoderOptions {
  // The encoder holds num_layers copies of encoder_layer, each starting with
  // its weights (PyTorch's deepcopy, libtorch's clone()).
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& layer_options,
                            int64_t num_layers)
      : encoder_layer_(layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerEncoderLayer, encoder_layer);
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);  // applied after the last layer when set
};

class TransformerEncoderImpl : public Module {
 public:
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);

  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

}  // namespace ember::nn
