// nn::init (nn/init.cpp) and the layers' default initialization: gains, fans,
// the kaiming/xavier bounds and standard deviations on large tensors, and
// orthogonality. Statistics use bounds that a correct sampler misses with
// probability below 1e-6 (5+ standard errors).
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <cmath>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;
namespace init = ember::nn::init;

namespace {

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
};

// Mean, population standard deviation and range, in float64.
Stats stats_of(const Tensor& t) {
  const std::vector<double> v = values(t);
  Stats s{0, 0, v[0], v[0]};
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / static_cast<double>(v.size()));
  return s;
}

// Values U(-b, b): all inside, the extremes near b, the std b / sqrt(3).
void require_uniform(const Tensor& t, double bound) {
  const Stats s = stats_of(t);
  const double n = static_cast<double>(t.numel());
  INFO("bound " << bound << ", min " << s.min << ", max " << s.max << ", std " << s.std);
  REQUIRE(s.min >= -bound);
  REQUIRE(s.max <= bound);
  REQUIRE(s.max > 0.99 * bound);
  REQUIRE(s.min < -0.99 * bound);
  REQUIRE(std::abs(s.mean) < 5 * bound / std::sqrt(3 * n));
  REQUIRE(std::abs(s.std / (bound / std::sqrt(3.0)) - 1) < 0.01);
}

// Values N(mean, std^2): sample mean and std close to them.
void require_normal(const Tensor& t, double mean, double std) {
  const Stats s = stats_of(t);
  const double n = static_cast<double>(t.numel());
  INFO("want mean " << mean << " std " << std << ", got " << s.mean << " and " << s.std);
  REQUIRE(std::abs(s.mean - mean) < 5 * std / std::sqrt(n));
  REQUIRE(std::abs(s.std / std - 1) < 0.01);
}

// Max |(a a^T) - scale I| for a (r, c) matrix: its rows' orthonormality.
double row_gram_error(const Tensor& a, double scale) {
  const Tensor gram = a.matmul(a.t()).to(kDouble);
  const Tensor eye_scaled = eye(a.size(0), kDouble) * scale;
  return (gram - eye_scaled).abs().max().item<double>();
}

}  // namespace

TEST_CASE("calculate_gain matches PyTorch's table", "[nn]") {
  REQUIRE(init::calculate_gain(kLinear) == 1);
  REQUIRE(init::calculate_gain(kConv2D) == 1);
  REQUIRE(init::calculate_gain(kSigmoid) == 1);
  REQUIRE(init::calculate_gain(kTanh) == Approx(5.0 / 3.0));
  REQUIRE(init::calculate_gain(kReLU) == Approx(std::sqrt(2.0)));
  REQUIRE(init::calculate_gain(kLeakyReLU) == Approx(std::sqrt(2.0 / (1 + 0.01 * 0.01))));
  REQUIRE(init::calculate_gain(kLeakyReLU, 0.2) == Approx(std::sqrt(2.0 / 1.04)));
}

TEST_CASE("fan_in and fan_out multiply in the receptive field", "[nn]") {
  // A conv weight (out 8, in 4, 3, 3): fan_in 4 * 9, fan_out 8 * 9.
  const auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(empty({8, 4, 3, 3}));
  REQUIRE(fan_in == 36);
  REQUIRE(fan_out == 72);
  const auto [in2, out2] = init::calculate_fan_in_and_fan_out(empty({5, 7}));
  REQUIRE(in2 == 7);
  REQUIRE(out2 == 5);
  REQUIRE_THROWS_WITH(init::calculate_fan_in_and_fan_out(empty({5})),
                      Contains("fan in and fan out can not be computed for a tensor with fewer "
                               "than 2 dimensions, got [5]"));
  REQUIRE_THROWS_WITH(init::kaiming_uniform_(empty({5})), Contains("fewer than 2 dimensions"));
}

TEST_CASE("kaiming_uniform_ draws from U(-b, b) with b = gain * sqrt(3 / fan)", "[nn]") {
  manual_seed(21);
  Tensor w = empty({256, 1024});
  init::kaiming_uniform_(w, 0, kFanIn, kReLU);
  require_uniform(w, std::sqrt(2.0) * std::sqrt(3.0 / 1024));
  init::kaiming_uniform_(w, 0, kFanOut, kReLU);
  require_uniform(w, std::sqrt(2.0) * std::sqrt(3.0 / 256));
  // PyTorch's layer default a = sqrt(5): gain sqrt(2 / 6), so b = 1 / sqrt(fan_in).
  init::kaiming_uniform_(w, std::sqrt(5.0));
  require_uniform(w, 1.0 / std::sqrt(1024.0));
}

TEST_CASE("kaiming_normal_ draws from N(0, gain^2 / fan)", "[nn]") {
  manual_seed(22);
  Tensor w = empty({128, 64, 3, 3});  // fan_in 576, fan_out 1152
  init::kaiming_normal_(w, 0, kFanIn, kReLU);
  require_normal(w, 0, std::sqrt(2.0 / 576));
  init::kaiming_normal_(w, 0.2, kFanOut);
  require_normal(w, 0, std::sqrt(2.0 / 1.04) / std::sqrt(1152.0));
}

TEST_CASE("xavier_uniform_ and xavier_normal_ use fan_in + fan_out", "[nn]") {
  manual_seed(23);
  Tensor w = empty({512, 384}, kDouble);
  init::xavier_uniform_(w);
  require_uniform(w, std::sqrt(6.0 / (512 + 384)));
  init::xavier_uniform_(w, init::calculate_gain(kTanh));
  require_uniform(w, 5.0 / 3.0 * std::sqrt(6.0 / (512 + 384)));
  init::xavier_normal_(w, 2.0);
  require_normal(w, 0, 2.0 * std::sqrt(2.0 / (512 + 384)));
}

TEST_CASE("normal_, uniform_, constant_, zeros_ and ones_ fill as asked", "[nn]") {
  manual_seed(24);
  Tensor t = empty({300000});
  init::normal_(t, 3.0, 2.0);
  require_normal(t, 3.0, 2.0);
  init::uniform_(t, -1.0, 3.0);
  const Stats s = stats_of(t);
  REQUIRE(s.min >= -1.0);
  REQUIRE(s.max <= 3.0);
  REQUIRE(std::abs(s.mean - 1.0) < 5 * (4 / std::sqrt(12.0)) / std::sqrt(300000.0));
  Tensor small = empty({2, 2});
  init::constant_(small, 0.5);
  require_values(small, {0.5, 0.5, 0.5, 0.5});
  init::zeros_(small);
  require_values(small, {0, 0, 0, 0});
  init::ones_(small);
  require_values(small, {1, 1, 1, 1});
}

TEST_CASE("init functions work on parameters without recording a graph", "[nn]") {
  Tensor w = zeros({4, 4}).requires_grad_();
  const uint32_t v0 = w._version();
  init::kaiming_uniform_(w);
  init::ones_(w);
  REQUIRE(w.is_leaf());
  REQUIRE(w.grad_fn() == nullptr);
  REQUIRE(w.requires_grad());
  REQUIRE(w._version() > v0);
  // A zero-size tensor is left alone (no division by a zero fan).
  Tensor none = empty({0, 3});
  REQUIRE(init::kaiming_uniform_(none).numel() == 0);
  REQUIRE(init::xavier_normal_(none).numel() == 0);
  REQUIRE(init::orthogonal_(none).numel() == 0);
}

TEST_CASE("orthogonal_ makes orthonormal rows or columns, times gain", "[nn]") {
  manual_seed(25);
  Tensor wide = empty({6, 10}, kDouble);
  init::orthogonal_(wide);
  REQUIRE(row_gram_error(wide, 1.0) < 1e-12);  // W W^T = I
  Tensor tall = empty({10, 6}, kDouble);
  init::orthogonal_(tall, 2.0);
  REQUIRE(row_gram_error(tall.t(), 4.0) < 1e-12);  // W^T W = gain^2 I
  Tensor conv = empty({4, 2, 3, 3});  // viewed as (4, 18)
  init::orthogonal_(conv);
  REQUIRE(row_gram_error(conv.reshape({4, 18}), 1.0) < 1e-5);
  REQUIRE_THROWS_WITH(init::orthogonal_(empty({3})),
                      Contains("orthogonal_: only tensors with 2 or more dimensions are supported"));
}

TEST_CASE("layers start from PyTorch's default initialization", "[nn]") {
  manual_seed(26);
  // Linear and Conv2d: weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  nn::Linear fc(400, 300);
  require_uniform(fc->weight, 1.0 / 20);
  const Stats bias = stats_of(fc->bias);
  REQUIRE(bias.max <= 1.0 / 20);
  REQUIRE(bias.min >= -1.0 / 20);
  nn::Conv2d conv(nn::Conv2dOptions(64, 256, 3));  // fan_in 64 * 9 = 576
  require_uniform(conv->weight, 1.0 / 24);
  REQUIRE(stats_of(conv->bias).max <= 1.0 / 24);
  // ConvTranspose2d: PyTorch's fan_in of its (in, out, k, k) weight is out * k * k.
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(256, 64, 3));
  require_uniform(deconv->weight, 1.0 / 24);
  // Embedding: N(0, 1).
  nn::Embedding emb(1000, 300);
  require_normal(emb->weight, 0, 1);
}
