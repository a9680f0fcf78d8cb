// The layers (nn/modules/*) and nn::functional (nn/functional/*): forward
// values stated by hand, gradients by gradcheck on float64 modules
// (module->to(kDouble)) with non-contiguous inputs, train/eval behaviour,
// containers, and the error messages.
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <cmath>
#include <string>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;
namespace F = ember::nn::functional;

namespace {

// Writes values into a parameter or buffer.
void set(const Tensor& t, const Tensor& v) {
  NoGradGuard no_grad;
  Tensor(t).copy_(v.reshape(t.sizes()));
}

// gradcheck of module(x) with respect to x and every parameter.
template <typename Holder>
autograd::GradcheckResult module_gradcheck(Holder& module, const Tensor& x) {
  tensor_list inputs{x};
  for (const Tensor& p : module->parameters()) inputs.push_back(p);
  return gradcheck([&module](const tensor_list& in) { return module(in[0]); }, inputs);
}

// A float64 (N, C, H, W) input that is not contiguous: NHWC storage permuted.
Tensor nchw_view_of_nhwc(int64_t n, int64_t c, int64_t h, int64_t w) {
  return (randn({n, h, w, c}, kDouble) * 0.5).permute({0, 3, 1, 2}).requires_grad_();
}

}  // namespace

// ------------------------------------------------------------------ Linear, Identity, Flatten

TEST_CASE("Linear computes x W^T + b", "[nn]") {
  nn::Linear fc(2, 3);
  set(fc->weight, tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}));
  set(fc->bias, tensor({0.5, -1.0, 2.0}));
  // Row 0: (1, -1) -> (1 - 2 + 0.5, 3 - 4 - 1, 5 - 6 + 2); row 1: (2, 0.5).
  require_values(fc(tensor({{1.0, -1.0}, {2.0, 0.5}})), {-0.5, -2, 1, 3.5, 7, 15});
  REQUIRE(fc->weight.sizes() == IntArrayRef{3, 2});
  REQUIRE(fc(zeros({0, 2})).sizes() == IntArrayRef{0, 3});
  // F::linear is the same maths.
  require_values(F::linear(tensor({{1.0, -1.0}}), fc->weight, fc->bias), {-0.5, -2, 1});
}

TEST_CASE("Linear without bias has no bias parameter", "[nn]") {
  nn::Linear fc(nn::LinearOptions(2, 1).bias(false));
  REQUIRE_FALSE(fc->bias.defined());
  REQUIRE(fc->parameters().size() == 1);
  set(fc->weight, tensor({{2.0, 3.0}}));
  require_values(fc(tensor({{1.0, 1.0}})), {5});
}

TEST_CASE("Linear gradients pass gradcheck with a transposed input", "[nn]") {
  manual_seed(1);
  nn::Linear fc(2, 3);
  fc->to(kDouble);
  const Tensor x = randn({2, 4}, kDouble).t().requires_grad_();  // (4, 2), non-contiguous
  REQUIRE_GRADCHECK(module_gradcheck(fc, x));
  // A batch of sequences (B, T, in) broadcasts over the leading dims.
  const Tensor seq = randn({2, 3, 2}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(module_gradcheck(fc, seq));
}

TEST_CASE("Identity returns its input and Flatten merges dims", "[nn]") {
  const Tensor x = arange(24, kDouble).reshape({2, 3, 4});
  nn::Identity identity;
  REQUIRE(identity(x).is_same(x));
  nn::Flatten flatten;
  REQUIRE(flatten(x).sizes() == IntArrayRef{2, 12});
  require_values(flatten(x), values(x));
  nn::Flatten all(nn::FlattenOptions().start_dim(0).end_dim(1));
  REQUIRE(all(x).sizes() == IntArrayRef{6, 4});
  const Tensor xg = randn({2, 3, 4}, kDouble).transpose(0, 2).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([&](const tensor_list& in) { return flatten(in[0]); }, {xg}));
}

// ------------------------------------------------------------------ activations

TEST_CASE("activation layers compute their functions", "[nn]") {
  const Tensor x = tensor({-1.0, 0.5, 2.0}, kDouble);
  require_values(nn::ReLU()(x), {0, 0.5, 2});
  require_values(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))(x), {-0.2, 0.5, 2});
  require_values(nn::LeakyReLU()(x), {-0.01, 0.5, 2});
  // GELU: x * Phi(x); the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  auto gelu = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  auto gelu_tanh = [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  };
  require_values(nn::GELU()(x), {gelu(-1), gelu(0.5), gelu(2)});
  require_values(nn::GELU(nn::GELUOptions().approximate("tanh"))(x),
                 {gelu_tanh(-1), gelu_tanh(0.5), gelu_tanh(2)});
  require_values(nn::GELU()(tensor({1.0}, kDouble)), {0.8413447460685429});
  require_values(nn::Sigmoid()(x), {1 / (1 + std::exp(1.0)), 1 / (1 + std::exp(-0.5)),
                                    1 / (1 + std::exp(-2.0))});
  require_values(nn::Tanh()(x), {std::tanh(-1.0), std::tanh(0.5), std::tanh(2.0)});
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  require_values(nn::Softmax(1)(tensor({{1.0, 2.0, 3.0}}, kDouble)),
                 {std::exp(1.0) / sum, std::exp(2.0) / sum, std::exp(3.0) / sum});
  REQUIRE(nn::ReLU()(zeros({0, 3})).numel() == 0);
}

TEST_CASE("activation gradients pass gradcheck on non-contiguous inputs", "[nn]") {
  manual_seed(2);
  // Kept away from 0, the kink of ReLU and LeakyReLU.
  Tensor base = randn({3, 4}, kDouble);
  base = base + base.sign() * 0.1;
  const Tensor x = base.t().requires_grad_();
  std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> layers = {
      {"ReLU", [](const Tensor& v) { return nn::ReLU()(v); }},
      {"LeakyReLU", [](const Tensor& v) { return nn::LeakyReLU()(v); }},
      {"GELU", [](const Tensor& v) { return nn::GELU()(v); }},
      {"GELU tanh", [](const Tensor& v) { return nn::GELU(nn::GELUOptions().approximate("tanh"))(v); }},
      {"Sigmoid", [](const Tensor& v) { return nn::Sigmoid()(v); }},
      {"Tanh", [](const Tensor& v) { return nn::Tanh()(v); }},
      {"Softmax", [](const Tensor& v) { return nn::Softmax(0)(v); }},
  };
  for (const auto& named : layers) {
    INFO(named.first);
    const auto& layer = named.second;  // a binding would not be capturable by clang 14
    REQUIRE_GRADCHECK(gradcheck([&](const tensor_list& in) { return layer(in[0]); }, {x}));
  }
}

TEST_CASE("inplace ReLU and LeakyReLU overwrite the input and bump its version", "[nn]") {
  Tensor x = tensor({-2.0, 3.0});
  const uint32_t v0 = x._version();
  nn::ReLU relu(nn::ReLUOptions(true));
  REQUIRE(relu(x).is_same(x));
  REQUIRE(x._version() > v0);
  require_values(x, {0, 3});
  Tensor y = tensor({-2.0, 3.0});
  const uint32_t v1 = y._version();
  F::leaky_relu(y, F::LeakyReLUFuncOptions().negative_slope(0.5).inplace(true));
  REQUIRE(y._version() > v1);
  require_values(y, {-1, 3});
  // Out of place leaves the input alone.
  Tensor z = tensor({-2.0});
  F::relu(z);
  require_values(z, {-2});
}

TEST_CASE("F::softmax computes in the requested dtype", "[nn]") {
  const Tensor y = F::softmax(tensor({{0.0, 0.0}}), F::SoftmaxFuncOptions(1).dtype(kDouble));
  REQUIRE(y.scalar_type() == kDouble);
  require_values(y, {0.5, 0.5});
}

TEST_CASE("GELU rejects an unknown approximation", "[nn]") {
  REQUIRE_THROWS_WITH(nn::GELU(nn::GELUOptions().approximate("fast")),
                      Contains("GELU: approximate must be 'none' or 'tanh', got 'fast'"));
}

// ------------------------------------------------------------------ convolutions

TEST_CASE("Conv2d computes a hand-checked 2x2 convolution", "[nn]") {
  nn::Conv2d conv(1, 1, 2);
  set(conv->weight, tensor({1.0, 2.0, 3.0, 4.0}));
  set(conv->bias, tensor({1.0}));
  // x = 1..9 as 3x3; window (0,0) = [[1,2],[4,5]] -> 1 + 4 + 12 + 20 + 1 = 38, ...
  const Tensor x = arange(1, 10, kFloat).reshape({1, 1, 3, 3});
  require_values(conv(x), {38, 48, 68, 78}, 1e-6);
  REQUIRE(conv->weight.sizes() == IntArrayRef{1, 1, 2, 2});
  nn::Conv2d grouped(nn::Conv2dOptions(4, 6, {3, 1}).groups(2).bias(false));
  REQUIRE(grouped->weight.sizes() == IntArrayRef{6, 2, 3, 1});
  REQUIRE_FALSE(grouped->bias.defined());
}

TEST_CASE("Conv2d with stride, padding, dilation and groups passes gradcheck", "[nn]") {
  manual_seed(3);
  nn::Conv2d conv(nn::Conv2dOptions(2, 4, 3).stride(2).padding(1).groups(2));
  conv->to(kDouble);
  REQUIRE_GRADCHECK(module_gradcheck(conv, nchw_view_of_nhwc(1, 2, 5, 5)));
  nn::Conv2d dilated(nn::Conv2dOptions(1, 1, 2).dilation(2).bias(false));
  dilated->to(kDouble);
  REQUIRE_GRADCHECK(module_gradcheck(dilated, nchw_view_of_nhwc(1, 1, 4, 4)));
}

TEST_CASE("ConvTranspose2d scatters each input through the kernel", "[nn]") {
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(1, 1, 2).bias(false));
  set(deconv->weight, tensor({1.0, 2.0, 3.0, 4.0}));
  // out[i + a][j + b] += x[i][j] * w[a][b] for x = [[1, 2], [3, 4]].
  require_values(deconv(tensor({1.0, 2.0, 3.0, 4.0}).reshape({1, 1, 2, 2})),
                 {1, 4, 4, 6, 20, 16, 9, 24, 16}, 1e-6);
  nn::ConvTranspose2d wide(nn::ConvTranspose2dOptions(4, 6, 3).groups(2));
  REQUIRE(wide->weight.sizes() == IntArrayRef{4, 3, 3, 3});
}

TEST_CASE("ConvTranspose2d with stride and output_padding passes gradcheck", "[nn]") {
  manual_seed(4);
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(2, 2, 3).stride(2).padding(1)
                                 .output_padding(1));
  deconv->to(kDouble);
  const Tensor x = nchw_view_of_nhwc(1, 2, 3, 3);
  REQUIRE(deconv(x).sizes() == IntArrayRef{1, 2, 6, 6});
  REQUIRE_GRADCHECK(module_gradcheck(deconv, x));
}

TEST_CASE("F::conv2d and F::conv_transpose2d pass their options through", "[nn]") {
  const Tensor x = ones({1, 1, 4, 4});
  const Tensor w = ones({1, 1, 2, 2});
  const Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).bias(tensor({0.5})));
  REQUIRE(y.sizes() == IntArrayRef{1, 1, 2, 2});
  require_values(y, {4.5, 4.5, 4.5, 4.5}, 1e-6);
  const Tensor up = F::conv_transpose2d(y, w, F::ConvTranspose2dFuncOptions().stride(2));
  REQUIRE(up.sizes() == IntArrayRef{1, 1, 4, 4});
  require_values(up, std::vector<double>(16, 4.5), 1e-6);
}

TEST_CASE("conv layers reject channels that groups does not divide", "[nn]") {
  REQUIRE_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)),
                      Contains("Conv2d: in_channels (3) must be divisible by groups (2)"));
  REQUIRE_THROWS_WITH(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 3, 3).groups(2)),
                      Contains("ConvTranspose2d: out_channels (3) must be divisible by groups (2)"));
  REQUIRE_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(0, 4, 3)),
                      Contains("Conv2d: in_channels and out_channels must be positive, got 0 and 4"));
  REQUIRE_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(1, 1, {3, 3, 3})),
                      Contains("expected 2 values, got 3"));
}

// ------------------------------------------------------------------ normalization

TEST_CASE("BatchNorm1d normalizes with batch stats while training and running stats in eval",
          "[nn]") {
  nn::BatchNorm1d bn(1);
  bn->to(kDouble);
  set(bn->weight, tensor({2.0}));
  set(bn->bias, tensor({1.0}));
  const Tensor x = tensor({{1.0}, {2.0}, {3.0}, {4.0}}, kDouble);
  // Batch: mean 2.5, biased variance 1.25.
  const double s = std::sqrt(1.25 + 1e-5);
  require_values(bn(x), {2 * -1.5 / s + 1, 2 * -0.5 / s + 1, 2 * 0.5 / s + 1, 2 * 1.5 / s + 1});
  // running_mean = 0.9 * 0 + 0.1 * 2.5; running_var = 0.9 * 1 + 0.1 * 5/3 (unbiased).
  require_values(bn->running_mean, {0.25});
  require_values(bn->running_var, {0.9 + 0.1 * 5.0 / 3.0});
  REQUIRE(bn->num_batches_tracked.item<int64_t>() == 1);
  bn->eval();
  const double rs = std::sqrt(0.9 + 0.1 * 5.0 / 3.0 + 1e-5);
  require_values(bn(x), {2 * (1 - 0.25) / rs + 1, 2 * (2 - 0.25) / rs + 1,
                         2 * (3 - 0.25) / rs + 1, 2 * (4 - 0.25) / rs + 1});
  REQUIRE(bn->num_batches_tracked.item<int64_t>() == 1);  // eval leaves the stats alone
}

TEST_CASE("BatchNorm options: momentum, no affine, no running stats", "[nn]") {
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(2).momentum(0.5).affine(false));
  REQUIRE(bn->parameters().empty());
  bn(tensor({{0.0, 2.0}, {2.0, 6.0}}));
  require_values(bn->running_mean, {0.5, 2}, 1e-6);  // 0.5 * batch mean (1, 4)
  nn::BatchNorm1d untracked(nn::BatchNorm1dOptions(1).track_running_stats(false));
  REQUIRE(untracked->buffers().empty());
  untracked->eval();  // still normalizes with the batch's own stats
  require_values(untracked(tensor({{1.0}, {3.0}})), {-1 / std::sqrt(1 + 1e-5),
                                                     1 / std::sqrt(1 + 1e-5)}, 1e-6);
  // The buffers start as PyTorch's.
  nn::BatchNorm2d fresh(3);
  require_values(fresh->weight, {1, 1, 1});
  require_values(fresh->bias, {0, 0, 0});
  require_values(fresh->running_mean, {0, 0, 0});
  require_values(fresh->running_var, {1, 1, 1});
}

TEST_CASE("BatchNorm2d passes gradcheck in training and eval", "[nn]") {
  manual_seed(5);
  nn::BatchNorm2d bn(3);
  bn->to(kDouble);
  set(bn->weight, tensor({0.5, 1.5, -1.0}, kDouble));
  set(bn->bias, tensor({0.1, -0.2, 0.3}, kDouble));
  const Tensor x = nchw_view_of_nhwc(2, 3, 2, 3);
  REQUIRE_GRADCHECK(module_gradcheck(bn, x));
  bn->eval();
  REQUIRE_GRADCHECK(module_gradcheck(bn, x));
}

TEST_CASE("BatchNorm layers name the input rank they need", "[nn]") {
  REQUIRE_THROWS_WITH(nn::BatchNorm2d(2)(ones({2, 2})),
                      Contains("BatchNorm2d: expected a 4-D input (N, C, H, W), got [2, 2]"));
  REQUIRE_THROWS_WITH(nn::BatchNorm1d(2)(ones({2, 2, 2, 2})),
                      Contains("BatchNorm1d: expected a 2-D or 3-D input"));
}

TEST_CASE("LayerNorm normalizes the trailing dims", "[nn]") {
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  ln->to(kDouble);
  // (1, 2, 3): mean 2, biased variance 2/3.
  const double s = std::sqrt(2.0 / 3.0 + 1e-5);
  require_values(ln(tensor({{1.0, 2.0, 3.0}}, kDouble)), {-1 / s, 0, 1 / s});
  REQUIRE(ln->weight.sizes() == IntArrayRef{3});
  nn::LayerNorm plain(nn::LayerNormOptions({2, 2}).elementwise_affine(false).eps(0));
  REQUIRE(plain->parameters().empty());
  require_values(plain(tensor({{{0.0, 2.0}, {0.0, 2.0}}})), {-1, 1, -1, 1}, 1e-6);
}

TEST_CASE("LayerNorm passes gradcheck", "[nn]") {
  manual_seed(6);
  nn::LayerNorm ln(std::vector<int64_t>{4});
  ln->to(kDouble);
  set(ln->weight, tensor({1.0, -0.5, 2.0, 0.3}, kDouble));
  const Tensor x = randn({4, 3}, kDouble).t().requires_grad_();  // (3, 4), non-contiguous
  REQUIRE_GRADCHECK(module_gradcheck(ln, x));
}

// ------------------------------------------------------------------ dropout

TEST_CASE("Dropout zeroes and rescales while training, and is the identity in eval", "[nn]") {
  manual_seed(7);
  nn::Dropout dropout(nn::DropoutOptions(0.25));
  const Tensor x = ones({10000});
  const std::vector<double> y = values(dropout(x));
  int64_t zeros_seen = 0;
  for (double v : y) {
    if (v == 0) ++zeros_seen;
    else REQUIRE(v == Approx(1 / 0.75));
  }
  // 10000 draws with p = 0.25: the count is within 5 standard deviations (43).
  REQUIRE(std::abs(zeros_seen - 2500) < 220);
  dropout->eval();
  REQUIRE(values(dropout(x)) == values(x));
  require_values(nn::Dropout(nn::DropoutOptions(0.0))(x.narrow(0, 0, 3)), {1, 1, 1});
}

TEST_CASE("Dropout's gradient is its mask", "[nn]") {
  nn::Dropout dropout(nn::DropoutOptions(0.5));
  const Tensor x = randn({3, 4}, kDouble).t().requires_grad_();
  // Same seed each call: the same mask.
  REQUIRE_GRADCHECK(gradcheck(
      [&](const tensor_list& in) {
        manual_seed(8);
        return dropout(in[0]);
      },
      {x}));
}

TEST_CASE("inplace Dropout overwrites the input and bumps its version", "[nn]") {
  Tensor x = ones({8});
  const uint32_t v0 = x._version();
  nn::Dropout dropout(nn::DropoutOptions(0.5).inplace(true));
  REQUIRE(dropout(x).is_same(x));
  REQUIRE(x._version() > v0);
  for (double v : values(x)) REQUIRE((v == 0 || v == 2));
}

TEST_CASE("Dropout rejects a probability outside [0, 1]", "[nn]") {
  REQUIRE_THROWS_WITH(nn::Dropout(nn::DropoutOptions(1.5)),
                      Contains("Dropout: probability has to be between 0 and 1, but got 1.5"));
}

// ------------------------------------------------------------------ pooling, upsampling

TEST_CASE("pooling layers reduce 2x2 windows", "[nn]") {
  const Tensor x = arange(16, kDouble).reshape({1, 1, 4, 4});  // rows 0..3, 4..7, ...
  require_values(nn::MaxPool2d(2)(x), {5, 7, 13, 15});
  require_values(nn::AvgPool2d(2)(x), {2.5, 4.5, 10.5, 12.5});
  require_values(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 2}))(x), {2.5, 4.5, 10.5, 12.5});
  require_values(nn::AdaptiveAvgPool2d(1)(x), {7.5});
  // stride 1, padding 1 on a 2x2 plane: each 3x3 window reaches all four values.
  const Tensor small = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).reshape({1, 2, 2});
  require_values(nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(1).padding(1))(small),
                 {4, 4, 4, 4});
  // count_include_pad=false averages only the real elements.
  require_values(
      nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1).count_include_pad(false))(small),
      {2.5, 2.5, 2.5, 2.5});
  const auto [out, indices] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
  require_values(indices, {5, 7, 13, 15});
}

TEST_CASE("pooling layers pass gradcheck", "[nn]") {
  manual_seed(9);
  const Tensor x = nchw_view_of_nhwc(1, 2, 4, 4);  // random values: no ties for max
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return nn::MaxPool2d(2)(in[0]); }, {x}));
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) {
        return nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1))(in[0]);
      },
      {x}));
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) { return nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, 2}))(in[0]); }, {x}));
}

TEST_CASE("Upsample repeats (nearest) or interpolates (bilinear)", "[nn]") {
  const Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).reshape({1, 1, 2, 2});
  nn::Upsample nearest(nn::UpsampleOptions().scale_factor({2, 2}));
  require_values(nearest(x), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  nn::Upsample corners(nn::UpsampleOptions()
                           .size({3, 3})
                           .mode(kBilinear)
                           .align_corners(true));
  require_values(corners(x), {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  // align_corners=false (the default): PyTorch's half-pixel sampling.
  nn::Upsample half(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBilinear));
  require_values(half(x), {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25,
                           3.75, 4});
  // A non-integer scale floors the size.
  REQUIRE(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.6, 2.5}))
              .sizes() == IntArrayRef{1, 1, 3, 5});
}

TEST_CASE("Upsample passes gradcheck", "[nn]") {
  manual_seed(10);
  const Tensor x = nchw_view_of_nhwc(1, 2, 3, 3);
  for (bool align : {false, true}) {
    nn::Upsample up(
        nn::UpsampleOptions().size(std::vector<int64_t>{5, 4}).mode(kBilinear).align_corners(align));
    REQUIRE_GRADCHECK(gradcheck([&](const tensor_list& in) { return up(in[0]); }, {x}));
  }
  nn::Upsample nearest(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 3}));
  REQUIRE_GRADCHECK(gradcheck([&](const tensor_list& in) { return nearest(in[0]); }, {x}));
}

TEST_CASE("interpolate names a bad size, scale or mode", "[nn]") {
  const Tensor x = ones({1, 1, 2, 2});
  REQUIRE_THROWS_WITH(F::interpolate(x, {}),
                      Contains("interpolate: either size or scale_factor should be defined"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions()
                                            .size(std::vector<int64_t>{4, 4})
                                            .scale_factor(std::vector<double>{2, 2})),
                      Contains("interpolate: only one of size or scale_factor should be defined"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4})),
                      Contains("interpolate: size must have 2 values (H, W)"));
  REQUIRE_THROWS_WITH(
      F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, -1})),
      Contains("interpolate: scale_factor must be positive, got -1"));
  REQUIRE_THROWS_WITH(F::interpolate(x, F::InterpolateFuncOptions()
                                            .size(std::vector<int64_t>{4, 4})
                                            .align_corners(true)),
                      Contains("align_corners can only be set with the interpolating mode"));
  REQUIRE_THROWS_WITH(
      F::interpolate(ones({2, 2}), F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 4})),
      Contains("interpolate: expected a 4-D input (N, C, H, W), got [2, 2]"));
}

// ------------------------------------------------------------------ embedding

TEST_CASE("Embedding looks up rows and keeps padding_idx out of the gradient", "[nn]") {
  nn::Embedding emb(4, 2);
  set(emb->weight, tensor({0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}));
  const Tensor idx = tensor({{1, 3}, {0, 1}});
  const Tensor y = emb(idx);
  REQUIRE(y.sizes() == IntArrayRef{2, 2, 2});
  require_values(y, {2, 3, 6, 7, 0, 1, 2, 3});

  nn::Embedding padded(nn::EmbeddingOptions(4, 2).padding_idx(-4));  // -4 is row 0
  REQUIRE(*padded->options.padding_idx() == 0);
  require_values(padded->weight[0], {0, 0});  // the padding row starts at zero
  padded(idx).sum().backward();
  // Rows: 0 (padding) none, 1 used twice, 3 once, 2 never.
  require_values(padded->weight.grad(), {0, 0, 2, 2, 0, 0, 1, 1});
}

TEST_CASE("Embedding passes gradcheck", "[nn]") {
  manual_seed(11);
  nn::Embedding emb(3, 2);
  emb->to(kDouble);
  REQUIRE_GRADCHECK(module_gradcheck(emb, tensor({{2, 0}, {2, 1}})));
}

// With padding_idx the weight's gradient is zeroed on purpose at the padding
// row, where the lookup does depend on it: there gradcheck does not apply (the
// test above checks those values). Elsewhere the padding node passes g through.
TEST_CASE("Embedding with padding_idx passes gradcheck on rows other than the padding row",
          "[nn]") {
  manual_seed(11);
  nn::Embedding emb(nn::EmbeddingOptions(4, 2).padding_idx(1));
  emb->to(kDouble);
  const Tensor idx = tensor({{2, 0}, {3, 2}});
  REQUIRE(emb(idx).grad_fn()->name() == "EmbeddingPaddingBackward");
  REQUIRE_GRADCHECK(module_gradcheck(emb, idx));
}

TEST_CASE("Embedding rejects a padding_idx out of range", "[nn]") {
  REQUIRE_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(3, 2).padding_idx(3)),
                      Contains("Embedding: padding_idx 3 out of range for 3 embeddings"));
  REQUIRE_THROWS_WITH(F::embedding(tensor({0}), ones({3, 2}), F::EmbeddingFuncOptions().padding_idx(-4)),
                      Contains("embedding: padding_idx -4 out of range for 3 embeddings"));
}

// ------------------------------------------------------------------ containers

TEST_CASE("Sequential chains its modules and is indexable", "[nn]") {
  nn::Linear fc(nn::LinearOptions(2, 2).bias(false));
  set(fc->weight, tensor({{1.0, 0.0}, {0.0, -1.0}}));
  nn::Sequential seq(fc, nn::ReLU());
  require_values(seq(tensor({{3.0, 3.0}})), {3, 0});
  REQUIRE(seq->size() == 2);
  REQUIRE(seq[0].get() == fc.get());
  REQUIRE(seq->ptr<nn::LinearImpl>(0) == fc.ptr());
  REQUIRE(seq->at<nn::ReLUImpl>(1).name() == "ReLU");
  seq->push_back(nn::Linear(2, 1));
  seq->push_back("out", nn::Sigmoid());
  REQUIRE(seq->named_children().keys() == std::vector<std::string>{"0", "1", "2", "out"});
  REQUIRE(seq(ones({5, 2})).sizes() == IntArrayRef{5, 1});
  int n = 0;
  for (const nn::AnyModule& m : *seq) n += !m.is_empty();
  REQUIRE(n == 4);
  nn::Sequential more;
  more->extend(*seq);
  REQUIRE(more->size() == 4);
}

TEST_CASE("Sequential names its errors", "[nn]") {
  nn::Sequential empty;
  REQUIRE_THROWS_WITH(empty(ones({1})), Contains("Sequential: cannot call forward() on an empty"));
  nn::Sequential seq{nn::ReLU()};
  REQUIRE_THROWS_WITH(seq->ptr(3), Contains("Sequential: index 3 is out of range for a "
                                            "Sequential of 1 modules"));
  REQUIRE_THROWS_WITH(seq->ptr<nn::LinearImpl>(0),
                      Contains("AnyModule: the module is a ReLU, not the requested type"));
}

TEST_CASE("ModuleList registers its modules by position", "[nn]") {
  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  list->push_back(nn::Linear(2, 1));
  REQUIRE(list->size() == 3);
  REQUIRE(list->named_parameters().keys() ==
          std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  list->insert(1, nn::Tanh().ptr());
  REQUIRE(list->named_children().keys() == std::vector<std::string>{"0", "1", "2", "3"});
  REQUIRE(list->at<nn::TanhImpl>(1).name() == "Tanh");
  REQUIRE(list->ptr<nn::LinearImpl>(3)->options.out_features() == 1);
  REQUIRE(list->named_parameters().keys() ==
          std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"});
  // Run by hand, as PyTorch code does with a ModuleList.
  Tensor x = ones({1, 2});
  for (const auto& m : *list) {
    if (auto fc = std::dynamic_pointer_cast<nn::LinearImpl>(m)) x = fc->forward(x);
  }
  REQUIRE(x.sizes() == IntArrayRef{1, 1});
  REQUIRE_THROWS_WITH(list->ptr(9), Contains("ModuleList: index 9 is out of range"));
  REQUIRE_THROWS_WITH(list->ptr<nn::LinearImpl>(1),
                      Contains("ModuleList: module 1 is a Tanh, not the requested type"));
}

TEST_CASE("ModuleDict registers its modules by key", "[nn]") {
  nn::ModuleDict heads({{"cls", nn::Linear(4, 3).ptr()}, {"box", nn::Linear(4, 2).ptr()}});
  REQUIRE(heads->keys() == std::vector<std::string>{"cls", "box"});
  REQUIRE(heads->named_parameters().keys() ==
          std::vector<std::string>{"cls.weight", "cls.bias", "box.weight", "box.bias"});
  REQUIRE(heads->at<nn::LinearImpl>("box").options.out_features() == 2);
  REQUIRE(heads->contains("cls"));
  heads->update("cls", nn::Linear(4, 5));  // replaces, keeping the order
  REQUIRE(heads->ptr<nn::LinearImpl>("cls")->options.out_features() == 5);
  REQUIRE(heads->named_children()["cls"].get() == heads["cls"].get());
  auto box = heads->pop("box");
  REQUIRE(box->name() == "Linear");
  REQUIRE(heads->keys() == std::vector<std::string>{"cls"});
  REQUIRE(heads->named_children().keys() == std::vector<std::string>{"cls"});
  REQUIRE_THROWS_WITH(heads["box"], Contains("Module 'box' is not defined"));
  heads->clear();
  REQUIRE(heads->is_empty());
  REQUIRE(heads->named_children().is_empty());
}

TEST_CASE("ModuleDict::update takes pairs, an OrderedDict or another dict's items", "[nn]") {
  nn::ModuleDict dict({{"a", nn::Linear(2, 2).ptr()}});
  dict->update({{"b", nn::ReLU().ptr()}, {"a", nn::Linear(2, 7).ptr()}});
  REQUIRE(dict->keys() == std::vector<std::string>{"a", "b"});  // "a" replaced in place
  REQUIRE(dict->at<nn::LinearImpl>("a").options.out_features() == 7);
  OrderedDict<std::string, std::shared_ptr<nn::Module>> more;
  more.insert("c", nn::Tanh().ptr());
  dict->update(more);
  nn::ModuleDict other({{"d", nn::Linear(7, 1).ptr()}, {"b", nn::Sigmoid().ptr()}});
  dict->update(*other);
  REQUIRE(dict->keys() == std::vector<std::string>{"a", "b", "c", "d"});
  REQUIRE(dict["b"]->name() == "Sigmoid");
  REQUIRE(dict->named_children()["b"].get() == dict["b"].get());
  REQUIRE(dict->named_parameters().keys() ==
          std::vector<std::string>{"a.weight", "a.bias", "d.weight", "d.bias"});
}

// ------------------------------------------------------------------ a small model end to end

TEST_CASE("the sample trainer's model runs forward and backward in float64", "[nn]") {
  // design.md section 8, shrunk: Conv-BN-ReLU blocks, Flatten, Linear.
  manual_seed(12);
  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(1, 2, 3).stride(2).padding(1)),
                       nn::BatchNorm2d(2), nn::ReLU(), nn::Flatten(), nn::Linear(2 * 2 * 2, 3));
  model->to(kDouble);
  const Tensor x = randn({2, 1, 4, 4}, kDouble);
  const Tensor y = model(x);
  REQUIRE(y.sizes() == IntArrayRef{2, 3});
  y.sum().backward();
  for (const auto& item : model->named_parameters()) {
    INFO(item.key());
    REQUIRE(item.value().grad().defined());
  }
}
