// nn::TransformerEncoderLayer and nn::TransformerEncoder (nn/modules/transformer.cpp):
// PyTorch's submodule names, the post-norm layer against its two residual
// blocks written out with F:: ops, layers cloned with equal weights, the
// activations, masks, gradcheck, errors.
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;
namespace F = ember::nn::functional;

namespace {

// x = LN1(x + attn(x)); x = LN2(x + W2 act(W1 x + b1) + b2), LayerNorm eps 1e-5 with
// the layer's affine parameters; the attention is the layer's own (tested in
// attention_test.cpp), called with need_weights off.
Tensor encoder_layer_reference(nn::TransformerEncoderLayer& l, const Tensor& x,
                               const Tensor& mask, const Tensor& padding, bool gelu_act) {
  const Tensor a = std::get<0>(l->self_attn->forward(x, x, x, padding, false, mask));
  const int64_t d = x.size(-1);
  const Tensor x1 = F::layer_norm(x + a, F::LayerNormFuncOptions({d})
                                             .weight(l->norm1->weight)
                                             .bias(l->norm1->bias)
                                             .eps(1e-5));
  const Tensor h = F::linear(x1, l->linear1->weight, l->linear1->bias);
  const Tensor f = F::linear(gelu_act ? gelu(h) : relu(h), l->linear2->weight, l->linear2->bias);
  return F::layer_norm(x1 + f, F::LayerNormFuncOptions({d})
                                   .weight(l->norm2->weight)
                                   .bias(l->norm2->bias)
                                   .eps(1e-5));
}

}  // namespace

TEST_CASE("TransformerEncoderLayer has PyTorch's submodules and parameter names",
          "[transformer]") {
  // torch 1.13.1: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16).named_parameters().
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  REQUIRE(layer->named_parameters().keys() ==
          std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                   "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                                   "linear1.weight", "linear1.bias", "linear2.weight",
                                   "linear2.bias", "norm1.weight", "norm1.bias",
                                   "norm2.weight", "norm2.bias"});
  REQUIRE(layer->linear1->weight.sizes() == IntArrayRef{16, 8});
  REQUIRE(layer->options.dropout() == 0.1);  // PyTorch's defaults
  REQUIRE(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward() == 2048);
}

TEST_CASE("TransformerEncoderLayer is two post-norm residual blocks", "[transformer]") {
  manual_seed(7);
  const int64_t S = 4, N = 2, d = 6;
  for (bool use_gelu : {false, true}) {
    INFO("gelu " << use_gelu);
    auto options = nn::TransformerEncoderLayerOptions(d, 3).dim_feedforward(10).dropout(0.0);
    if (use_gelu) options.activation(kGELU);
    nn::TransformerEncoderLayer layer(options);
    layer->to(kDouble);
    {
      NoGradGuard no_grad;  // non-trivial LayerNorm affine parameters
      Tensor(layer->norm1->weight).copy_(rand({d}, kDouble) + 0.5);
      Tensor(layer->norm2->bias).copy_(randn({d}, kDouble));
    }
    const Tensor x = randn({S, N, d}, kDouble);
    const Tensor mask = randn({S, S}, kDouble);
    const Tensor padding = tensor({false, false, true, false, false, false, false, true})
                               .view({N, S});
    require_values(layer(x), values(encoder_layer_reference(layer, x, {}, {}, use_gelu)), 1e-12);
    require_values(layer(x, mask, padding),
                   values(encoder_layer_reference(layer, x, mask, padding, use_gelu)), 1e-12);
  }
  // Any function: here tanh.
  nn::TransformerEncoderLayer custom(nn::TransformerEncoderLayerOptions(4, 2).dropout(0.0).activation(
      [](const Tensor& t) { return t.tanh(); }));
  const Tensor x = randn({3, 1, 4});
  const Tensor x1 = custom->norm1(x + std::get<0>(custom->self_attn(x, x, x, Tensor(), false)));
  require_values(custom(x), values(custom->norm2(x1 + custom->linear2(custom->linear1(x1).tanh()))),
                 1e-5);
}

TEST_CASE("TransformerEncoder stacks copies of the layer with its weights, then the norm",
          "[transformer]") {
  manual_seed(8);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0));
  nn::TransformerEncoder encoder(
      nn::TransformerEncoderOptions(layer, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
  const auto names = encoder->named_parameters().keys();
  REQUIRE(names.size() == 26);  // torch 1.13.1: 2 x 12 + the final norm's 2
  REQUIRE(names.front() == "layers.0.self_attn.in_proj_weight");
  REQUIRE(names.back() == "norm.bias");
  auto& first = encoder->layers->at<nn::TransformerEncoderLayerImpl>(0);
  auto& second = encoder->layers->at<nn::TransformerEncoderLayerImpl>(1);
  REQUIRE(values(first.linear1->weight) == values(layer->linear1->weight));
  REQUIRE(values(second.linear1->weight) == values(layer->linear1->weight));
  // Copies, not shared: changing one layer leaves the others alone.
  {
    NoGradGuard no_grad;
    Tensor(first.linear1->weight).add_(1.0);
  }
  REQUIRE(values(second.linear1->weight) == values(layer->linear1->weight));
  const Tensor x = randn({5, 3, 4});
  const Tensor mask = zeros({5, 5});
  const Tensor by_hand = encoder->norm.forward(second.forward(first.forward(x, mask), mask));
  require_values(encoder(x, mask), values(by_hand));
}

TEST_CASE("TransformerEncoderLayer passes gradcheck; bad options and inputs are errors",
          "[transformer]") {
  manual_seed(9);
  nn::TransformerEncoderLayer layer(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3).dropout(0.0).activation(kGELU));
  layer->to(kDouble);
  const Tensor x = randn({3, 2, 4}, kDouble).requires_grad_();
  tensor_list inputs = {x};  // and every parameter (gradcheck perturbs them in place)
  for (const Tensor& p : layer->parameters()) inputs.push_back(p);
  const autograd::GradcheckFn fn = [&layer](const tensor_list& in) { return layer(in[0]); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, inputs));

  REQUIRE_THROWS_WITH(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 2).activation(kTanh)),
                      Contains("expected kReLU, kGELU or a function"));
  REQUIRE_THROWS_WITH(nn::TransformerEncoder(nn::TransformerEncoderOptions(layer, 0)),
                      Contains("num_layers must be positive, got 0"));
  REQUIRE_THROWS_WITH(layer(randn({3, 2, 5}, kDouble)), Contains("MultiheadAttention"));
  REQUIRE_THROWS_WITH(nn::init::calculate_gain(kGELU), Contains("unsupported nonlinearity GELU"));
}
