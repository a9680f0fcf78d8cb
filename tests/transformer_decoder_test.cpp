// nn::TransformerDecoderLayer, nn::TransformerDecoder and nn::Transformer
// (nn/modules/transformer_decoder.cpp, transformer_model.cpp): PyTorch's
// parameter names, the post-norm layer against its three residual blocks
// written out with the layer's own attention modules (checked in
// attention_test.cpp) and F:: ops, the causal mask, gradcheck, errors.
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <limits>
#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;
namespace F = ember::nn::functional;

namespace {

Tensor norm(const nn::LayerNorm& n, const Tensor& x) {
  return F::layer_norm(
      x, F::LayerNormFuncOptions({x.size(-1)}).weight(n->weight).bias(n->bias).eps(1e-5));
}

// x = LN1(x + self_attn(x)); x = LN2(x + cross_attn(x, memory));
// x = LN3(x + W2 act(W1 x + b1) + b2).
Tensor decoder_layer_reference(nn::TransformerDecoderLayer& l, const Tensor& tgt,
                               const Tensor& memory, const Tensor& tgt_mask,
                               const Tensor& memory_mask, const Tensor& tgt_padding,
                               const Tensor& memory_padding, bool gelu_act) {
  const Tensor a = std::get<0>(l->self_attn->forward(tgt, tgt, tgt, tgt_padding, false, tgt_mask));
  const Tensor x1 = norm(l->norm1, tgt + a);
  const Tensor m =
      std::get<0>(l->multihead_attn->forward(x1, memory, memory, memory_padding, false, memory_mask));
  const Tensor x2 = norm(l->norm2, x1 + m);
  const Tensor h = F::linear(x2, l->linear1->weight, l->linear1->bias);
  const Tensor f = F::linear(gelu_act ? gelu(h) : relu(h), l->linear2->weight, l->linear2->bias);
  return norm(l->norm3, x2 + f);
}

}  // namespace

TEST_CASE("Decoder layer, decoder and Transformer have PyTorch's parameter names",
          "[transformer_decoder]") {
  // torch 1.13.1: nn.TransformerDecoderLayer(8, 2, dim_feedforward=16).named_parameters().
  nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16));
  REQUIRE(layer->named_parameters().keys() ==
          std::vector<std::string>{
              "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
              "self_attn.out_proj.bias", "multihead_attn.in_proj_weight",
              "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
              "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
              "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
              "norm3.weight", "norm3.bias"});
  REQUIRE(layer->options.dropout() == 0.1);
  REQUIRE(layer->options.dim_feedforward() == 16);
  REQUIRE(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward() == 2048);

  nn::TransformerDecoder decoder(nn::TransformerDecoderOptions(layer, 2).norm(
      nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({8})))));
  const auto names = decoder->named_parameters().keys();
  REQUIRE(names.size() == 38);  // 2 x 18 + the final norm's 2
  REQUIRE(names.front() == "layers.0.self_attn.in_proj_weight");
  REQUIRE(names[18] == "layers.1.self_attn.in_proj_weight");
  REQUIRE(names.back() == "norm.bias");

  // torch 1.13.1: nn.Transformer(8, 2, 1, 2, 16): 12 + 2 encoder, 2 x 18 + 2 decoder.
  nn::Transformer model(nn::TransformerOptions(8, 2, 1, 2).dim_feedforward(16));
  const auto model_names = model->named_parameters().keys();
  REQUIRE(model_names.size() == 52);
  REQUIRE(model_names[0] == "encoder.layers.0.self_attn.in_proj_weight");
  REQUIRE(model_names[12] == "encoder.norm.weight");
  REQUIRE(model_names[14] == "decoder.layers.0.self_attn.in_proj_weight");
  REQUIRE(model_names[22] == "decoder.layers.0.linear1.weight");
  REQUIRE(model_names.back() == "decoder.norm.bias");
  REQUIRE(nn::TransformerOptions().d_model() == 512);
  REQUIRE(nn::TransformerOptions().num_decoder_layers() == 6);
}

TEST_CASE("TransformerDecoderLayer is three post-norm residual blocks", "[transformer_decoder]") {
  manual_seed(21);
  const int64_t T = 4, S = 3, N = 2, d = 6;
  for (bool use_gelu : {false, true}) {
    INFO("gelu " << use_gelu);
    auto options = nn::TransformerDecoderLayerOptions(d, 3).dim_feedforward(10).dropout(0.0);
    if (use_gelu) options.activation(kGELU);
    nn::TransformerDecoderLayer layer(options);
    layer->to(kDouble);
    {
      NoGradGuard no_grad;  // non-trivial LayerNorm affine parameters and biases
      for (const Tensor& p : layer->parameters())
        if (p.dim() == 1) Tensor(p).copy_(randn(p.sizes(), kDouble) * 0.5 + 0.5);
    }
    const Tensor tgt = randn({T, N, d}, kDouble), memory = randn({S, N, d}, kDouble);
    const Tensor tgt_mask = randn({T, T}, kDouble), memory_mask = randn({T, S}, kDouble);
    const Tensor tgt_padding = tensor({false, false, true, false, false, false, false, false})
                                   .view({N, T});
    const Tensor memory_padding = tensor({false, true, false, false, false, true}).view({N, S});
    require_values(layer(tgt, memory),
                   values(decoder_layer_reference(layer, tgt, memory, {}, {}, {}, {}, use_gelu)),
                   1e-12);
    require_values(layer(tgt, memory, tgt_mask, memory_mask, tgt_padding, memory_padding),
                   values(decoder_layer_reference(layer, tgt, memory, tgt_mask, memory_mask,
                                                  tgt_padding, memory_padding, use_gelu)),
                   1e-12);
  }
}

TEST_CASE("TransformerDecoder stacks copies of the layer; Transformer is decoder(encoder)",
          "[transformer_decoder]") {
  manual_seed(22);
  nn::TransformerDecoderLayer layer(
      nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0));
  nn::TransformerDecoder decoder(nn::TransformerDecoderOptions(layer, 2).norm(
      nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
  auto& first = decoder->layers->at<nn::TransformerDecoderLayerImpl>(0);
  auto& second = decoder->layers->at<nn::TransformerDecoderLayerImpl>(1);
  REQUIRE(values(first.multihead_attn->in_proj_weight) == values(layer->multihead_attn->in_proj_weight));
  REQUIRE(values(second.linear2->weight) == values(layer->linear2->weight));
  {
    NoGradGuard no_grad;
    Tensor(first.linear2->weight).add_(1.0);
  }
  REQUIRE(values(second.linear2->weight) == values(layer->linear2->weight));
  const Tensor tgt = randn({5, 3, 4}), memory = randn({2, 3, 4});
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(5);
  const Tensor by_hand =
      decoder->norm.forward(second.forward(first.forward(tgt, memory, mask), memory, mask));
  require_values(decoder(tgt, memory, mask), values(by_hand));

  nn::Transformer model(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(8).dropout(0.0));
  const Tensor src = randn({2, 3, 4});
  const Tensor src_padding = tensor({false, true, false, false, false, false}).view({3, 2});
  const Tensor memory2 = model->encoder(src, Tensor(), src_padding);
  require_values(model->forward(src, tgt, {}, mask, {}, src_padding, {}, src_padding),
                 values(model->decoder->forward(tgt, memory2, mask, {}, {}, src_padding)));
}

TEST_CASE("generate_square_subsequent_mask keeps position t from seeing later positions",
          "[transformer_decoder]") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(3);
  REQUIRE(mask.scalar_type() == kFloat);
  require_values(mask, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0});

  manual_seed(23);
  const int64_t T = 5;
  nn::Transformer model(nn::TransformerOptions(4, 2, 1, 2).dim_feedforward(8).dropout(0.0));
  model->to(kDouble);
  const Tensor src = randn({3, 2, 4}, kDouble), tgt = randn({T, 2, 4}, kDouble);
  const Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(T).to(kDouble);
  const Tensor out = model->forward(src, tgt, {}, causal);
  for (int64_t t = 0; t < T; ++t) {
    INFO("changing tgt from position " << t);
    Tensor changed = tgt.clone();
    {
      NoGradGuard no_grad;
      changed.narrow(0, t, T - t).add_(1.0);
    }
    const Tensor moved = model->forward(src, changed, {}, causal);
    if (t > 0) require_values(moved.narrow(0, 0, t), values(out.narrow(0, 0, t)), 1e-12);
    // Position t itself sees the change (so the check above can fail).
    REQUIRE((moved[t] - out[t]).abs().max().item<double>() > 1e-3);
    // Without the mask, earlier positions see later ones.
    if (t > 0)
      REQUIRE((model(src, changed).narrow(0, 0, t) - model(src, tgt).narrow(0, 0, t))
                  .abs().max().item<double>() > 1e-3);
  }
}

TEST_CASE("Decoder layer and Transformer pass gradcheck", "[transformer_decoder]") {
  manual_seed(24);
  nn::TransformerDecoderLayer layer(
      nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(3).dropout(0.0).activation(kGELU));
  layer->to(kDouble);
  const Tensor tgt = randn({3, 2, 4}, kDouble).requires_grad_();
  const Tensor memory = randn({2, 2, 4}, kDouble).requires_grad_();
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(kDouble);
  tensor_list inputs = {tgt, memory};
  for (const Tensor& p : layer->parameters()) inputs.push_back(p);
  const autograd::GradcheckFn fn = [&](const tensor_list& in) { return layer(in[0], in[1], mask); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, inputs));

  nn::Transformer model(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3).dropout(0.0));
  model->to(kDouble);
  const Tensor src = randn({2, 1, 4}, kDouble).requires_grad_();
  const Tensor tgt1 = randn({3, 1, 4}, kDouble).requires_grad_();
  const autograd::GradcheckFn model_fn = [&](const tensor_list& in) {
    return model->forward(in[0], in[1], {}, mask);
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(model_fn, {src, tgt1}));
}

TEST_CASE("Bad decoder options and inputs are errors", "[transformer_decoder]") {
  nn::TransformerDecoderLayer layer(4, 2);
  REQUIRE_THROWS_WITH(nn::TransformerDecoder(nn::TransformerDecoderOptions(layer, 0)),
                      Contains("TransformerDecoder: num_layers must be positive, got 0"));
  REQUIRE_THROWS_WITH(
      nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(0)),
      Contains("TransformerDecoderLayer: dim_feedforward must be positive, got 0"));
  REQUIRE_THROWS_WITH(layer(randn({3, 2, 4}), randn({2, 2, 5})), Contains("MultiheadAttention"));
  nn::Transformer model(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(8));
  REQUIRE_THROWS_WITH(model(randn({2, 3, 4}), randn({2, 2, 4})),
                      Contains("Transformer: expected src (S, N, 4) and tgt (T, N, 4) with the "
                               "same batch size N, got src [2, 3, 4] and tgt [2, 2, 4]"));
  REQUIRE_THROWS_WITH(nn::TransformerImpl::generate_square_subsequent_mask(0),
                      Contains("the size must be positive, got 0"));
}
