#include "ember/nn/modules/transformer_model.h"

#include <limits>

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/init.h"

namespace ember::nn {

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  const int64_t d = options.d_model();
  const auto encoder_layer = TransformerEncoderLayerOptions(d, options.nhead())
                                 .dim_feedforward(options.dim_feedforward())
                                 .dropout(options.dropout())
                                 .activation(options.activation());
  const auto decoder_layer = TransformerDecoderLayerOptions(d, options.nhead())
                                 .dim_feedforward(options.dim_feedforward())
                                 .dropout(options.dropout())
                                 .activation(options.activation());
  encoder = register_module(
      "encoder", TransformerEncoder(TransformerEncoderOptions(encoder_layer,
                                                              options.num_encoder_layers())
                                        .norm(AnyModule(LayerNorm(LayerNormOptions({d}))))));
  decoder = register_module(
      "decoder", TransformerDecoder(TransformerDecoderOptions(decoder_layer,
                                                              options.num_decoder_layers())
                                        .norm(AnyModule(LayerNorm(LayerNormOptions({d}))))));
  reset_parameters();
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  const int64_t d = options.d_model();
  EMBER_CHECK(src.dim() == 3 && tgt.dim() == 3 && src.size(1) == tgt.size(1) &&
                  src.size(2) == d && tgt.size(2) == d,
              "Transformer: expected src (S, N, ", d, ") and tgt (T, N, ", d,
              ") with the same batch size N, got src ", src.sizes(), " and tgt ", tgt.sizes());
  const Tensor memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                 memory_key_padding_mask);
}

void TransformerImpl::reset_parameters() {
  for (const Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

void TransformerImpl::pretty_print(std::ostream& stream) const {
  stream << "Transformer(d_model=" << options.d_model() << ", nhead=" << options.nhead()
         << ", num_encoder_layers=" << options.num_encoder_layers()
         << ", num_decoder_layers=" << options.num_decoder_layers() << ")";
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz > 0, "Transformer::generate_square_subsequent_mask: the size must be positive, "
              "got ", sz);
  return full({sz, sz}, -std::numeric_limits<float>::infinity()).triu(1);
}

}  // namespace ember::nn
