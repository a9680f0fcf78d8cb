#include "ember/nn/modules/transformer.h"

#include "ember/core/ops/elementwise/unary.h"
#include "ember/nn/modules/layer_copy.h"

namespace ember::nn {

TransformerActivation::TransformerActivation(Nonlinearity kind) {
  EMBER_CHECK(kind == kReLU || kind == kGELU,
              "TransformerActivation: expected kReLU, kGELU or a function");
  if (kind == kReLU)
    fn_ = [](const Tensor& x) { return relu(x); };
  else
    fn_ = [](const Tensor& x) { return gelu(x); };
}

TransformerActivation::TransformerActivation(std::function<Tensor(const Tensor&)> fn)
    : fn_(std::move(fn)) {
  EMBER_CHECK(fn_ != nullptr, "TransformerActivation: the function is empty");
}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  const int64_t d = options.d_model();
  EMBER_CHECK(options.dim_feedforward() > 0, "TransformerEncoderLayer: dim_feedforward must be "
              "positive, got ", options.dim_feedforward());
  self_attn = register_module(
      "self_attn", MultiheadAttention(MultiheadAttentionOptions(d, options.nhead())
                                          .dropout(options.dropout())));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d})));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  const Tensor attended = std::get<0>(self_attn->forward(src, src, src, src_key_padding_mask,
                                                         /*need_weights=*/false, src_mask));
  const Tensor x = norm1(src + dropout1(attended));
  const Tensor fed = linear2(dropout(options.activation()(linear1(x))));
  return norm2(x + dropout2(fed));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "TransformerEncoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ")";
}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_)
    : options(std::move(options_)) {
  EMBER_CHECK(!options.encoder_layer().is_empty(), "TransformerEncoder: the encoder layer is null");
  EMBER_CHECK(options.num_layers() > 0, "TransformerEncoder: num_layers must be positive, got ",
              options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i)
    layers->push_back(detail::copy_of(options.encoder_layer()));
  if (!options.norm().is_empty()) {
    norm = options.norm();
    register_module("norm", norm.ptr());
  }
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i)
    x = layers->at<TransformerEncoderLayerImpl>(i).forward(x, src_mask, src_key_padding_mask);
  return norm.is_empty() ? x : norm.forward(x);
}

void TransformerEncoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i)
    layers->at<TransformerEncoderLayerImpl>(i).reset_parameters();
}

void TransformerEncoderImpl::pretty_print(std::ostream& stream) const {
  stream << "TransformerEncoder(num_layers=" << options.num_layers() << ")";
}

}  // namespace ember::nn
