#include "ember/nn/modules/transformer_decoder.h"

#include "ember/nn/modules/layer_copy.h"

namespace ember::nn {

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  const int64_t d = options.d_model();
  EMBER_CHECK(options.dim_feedforward() > 0, "TransformerDecoderLayer: dim_feedforward must be "
              "positive, got ", options.dim_feedforward());
  const auto attention = MultiheadAttentionOptions(d, options.nhead()).dropout(options.dropout());
  self_attn = register_module("self_attn", MultiheadAttention(attention));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(attention));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d})));
  norm3 = register_module("norm3", LayerNorm(LayerNormOptions({d})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  const Tensor attended = std::get<0>(self_attn->forward(tgt, tgt, tgt, tgt_key_padding_mask,
                                                         /*need_weights=*/false, tgt_mask));
  Tensor x = norm1(tgt + dropout1(attended));
  const Tensor recalled = std::get<0>(multihead_attn->forward(
      x, memory, memory, memory_key_padding_mask, /*need_weights=*/false, memory_mask));
  x = norm2(x + dropout2(recalled));
  const Tensor fed = linear2(dropout(options.activation()(linear1(x))));
  return norm3(x + dropout3(fed));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->reset_parameters();
  multihead_attn->reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

void TransformerDecoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "TransformerDecoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ")";
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_)
    : options(std::move(options_)) {
  EMBER_CHECK(!options.decoder_layer().is_empty(), "TransformerDecoder: the decoder layer is null");
  EMBER_CHECK(options.num_layers() > 0, "TransformerDecoder: num_layers must be positive, got ",
              options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i)
    layers->push_back(detail::copy_of(options.decoder_layer()));
  if (!options.norm().is_empty()) {
    norm = options.norm();
    register_module("norm", norm.ptr());
  }
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->at<TransformerDecoderLayerImpl>(i).forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  return norm.is_empty() ? x : norm.forward(x);
}

void TransformerDecoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i)
    layers->at<TransformerDecoderLayerImpl>(i).reset_parameters();
}

void TransformerDecoderImpl::pretty_print(std::ostream& stream) const {
  stream << "TransformerDecoder(num_layers=" << options.num_layers() << ")";
}

}  // namespace ember::nn
