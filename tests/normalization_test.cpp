// Batch, layer and group normalization (core/ops/nn_ops/normalization.cpp): values against
// float64 loops written here, running statistics against PyTorch's update
// formula, train vs eval, the fused backward against the composed one
// (create_graph), gradcheck / gradgradcheck on strided inputs, error messages.
#include "test_helpers.h"

#include <ember/core/ops/nn_ops/normalization.h>
#include <ember/core/shape.h>

#include <cmath>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

// Per-channel statistics of x (N, C, S...) over every dim but 1, in float64.
struct ChannelStats {
  std::vector<double> mean, biased_var, unbiased_var;
};
ChannelStats channel_stats(const Tensor& x) {
  const std::vector<double> v = values(x);
  const int64_t n = x.size(0), c = x.size(1), s = x.numel() / (n * c);
  ChannelStats st;
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < s; ++j) sum += v[(i * c + ch) * s + j];
    const double m = sum / static_cast<double>(n * s);
    double sq = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < s; ++j)
        sq += (v[(i * c + ch) * s + j] - m) * (v[(i * c + ch) * s + j] - m);
    st.mean.push_back(m);
    st.biased_var.push_back(sq / static_cast<double>(n * s));
    st.unbiased_var.push_back(sq / static_cast<double>(n * s - 1));
  }
  return st;
}

// (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c] for every element, w/b optional.
std::vector<double> naive_batch_norm(const Tensor& x, const std::vector<double>& mean,
                                     const std::vector<double>& var, const Tensor& w,
                                     const Tensor& b, double eps) {
  const std::vector<double> v = values(x);
  const std::vector<double> wv = w.defined() ? values(w) : std::vector<double>(mean.size(), 1.0);
  const std::vector<double> bv = b.defined() ? values(b) : std::vector<double>(mean.size(), 0.0);
  const int64_t c = x.size(1), s = x.numel() / (x.size(0) * c);
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto ch = static_cast<size_t>((static_cast<int64_t>(i) / s) % c);
    out[i] = (v[i] - mean[ch]) / std::sqrt(var[ch] + eps) * wv[ch] + bv[ch];
  }
  return out;
}

// Row-wise normalization over the last k elements of x, w/b of k values (optional).
std::vector<double> naive_layer_norm(const Tensor& x, int64_t k, const Tensor& w, const Tensor& b,
                                     double eps) {
  const std::vector<double> v = values(x);
  const std::vector<double> wv = w.defined() ? values(w) : std::vector<double>(k, 1.0);
  const std::vector<double> bv = b.defined() ? values(b) : std::vector<double>(k, 0.0);
  std::vector<double> out(v.size());
  for (size_t r = 0; r * k < v.size(); ++r) {
    double m = 0, var = 0;
    for (int64_t j = 0; j < k; ++j) m += v[r * k + j];
    m /= static_cast<double>(k);
    for (int64_t j = 0; j < k; ++j) var += (v[r * k + j] - m) * (v[r * k + j] - m);
    var /= static_cast<double>(k);
    for (int64_t j = 0; j < k; ++j)
      out[r * k + j] = (v[r * k + j] - m) / std::sqrt(var + eps) * wv[j] + bv[j];
  }
  return out;
}

Tensor random(IntArrayRef shape, ScalarType t = kDouble) { return randn(shape, t) * 1.5 + 0.5; }
Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

}  // namespace

TEST_CASE("batch_norm in training normalizes with the batch mean and biased variance", "[norm]") {
  // {70, 3, 40}: runs long enough for the vector path, a batch long enough to flush its lanes.
  const std::vector<std::vector<int64_t>> shapes = {{7, 3}, {4, 3, 5}, {3, 4, 5, 3}, {70, 3, 40}};
  for (ScalarType t : {kFloat, kDouble})
    for (const auto& shape : shapes)
      for (bool affine : {true, false}) {
        INFO("shape " << IntArrayRef(shape) << " in " << t << " affine " << affine);
        const Tensor x = random(shape, t);
        const int64_t c = shape[1];
        const Tensor w = affine ? random({c}, t) : Tensor(), b = affine ? random({c}, t) : Tensor();
        const ChannelStats st = channel_stats(x);
        const Tensor y = batch_norm(x, w, b, Tensor(), Tensor(), true, 0.1, 1e-5);
        REQUIRE(y.sizes() == x.sizes());
        require_values(y, naive_batch_norm(x, st.mean, st.biased_var, w, b, 1e-5),
                       t == kFloat ? 1e-5 : 1e-12);
      }
}

TEST_CASE("batch_norm updates running stats in place with momentum and the unbiased variance",
          "[norm]") {
  const Tensor x = random({5, 3, 2, 3});
  Tensor running_mean = tensor({0.5, -1.0, 2.0}, kDouble);
  Tensor running_var = tensor({1.0, 0.25, 4.0}, kDouble);
  const std::vector<double> rm0 = values(running_mean), rv0 = values(running_var);
  const uint32_t mean_version = running_mean._version(), var_version = running_var._version();
  const ChannelStats st = channel_stats(x);
  batch_norm(x, Tensor(), Tensor(), running_mean, running_var, true, 0.3, 1e-5);
  std::vector<double> want_mean, want_var;
  for (size_t c = 0; c < 3; ++c) {
    want_mean.push_back(0.7 * rm0[c] + 0.3 * st.mean[c]);
    want_var.push_back(0.7 * rv0[c] + 0.3 * st.unbiased_var[c]);
  }
  require_values(running_mean, want_mean);
  require_values(running_var, want_var);
  REQUIRE(running_mean._version() > mean_version);
  REQUIRE(running_var._version() > var_version);
  REQUIRE_FALSE(running_mean.requires_grad());
}

TEST_CASE("batch_norm in eval uses the running stats and leaves them unchanged", "[norm]") {
  const Tensor x = random({4, 3, 5});
  const Tensor w = random({3}), b = random({3});
  const Tensor running_mean = tensor({0.5, -1.0, 2.0}, kDouble);
  const Tensor running_var = tensor({1.0, 0.25, 4.0}, kDouble);
  const Tensor y = batch_norm(x, w, b, running_mean, running_var, false, 0.1, 1e-3);
  require_values(y, naive_batch_norm(x, {0.5, -1.0, 2.0}, {1.0, 0.25, 4.0}, w, b, 1e-3));
  require_values(running_mean, {0.5, -1.0, 2.0});
  require_values(running_var, {1.0, 0.25, 4.0});
  // Training on the same batch normalizes with its own statistics instead.
  const ChannelStats st = channel_stats(x);
  const Tensor y_train =
      batch_norm(x, w, b, running_mean.clone(), running_var.clone(), true, 0.1, 1e-3);
  require_values(y_train, naive_batch_norm(x, st.mean, st.biased_var, w, b, 1e-3));
  // A zero batch is fine in eval.
  const Tensor e =
      batch_norm(zeros({0, 3, 5}, kDouble), w, b, running_mean, running_var, false, 0.1, 1e-3);
  REQUIRE(e.sizes() == IntArrayRef{0, 3, 5});
}

TEST_CASE("batch_norm statistics stay accurate for a large mean", "[norm]") {
  // Values 1e4 + u with u in [0, 1): the variance is about 1/12 of 1e8 times smaller than mean^2.
  const Tensor x = (rand({64, 2, 8}, kFloat) + 1e4f);
  const ChannelStats st = channel_stats(x);
  const Tensor y = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 0.0);
  require_values(y, naive_batch_norm(x, st.mean, st.biased_var, Tensor(), Tensor(), 0.0), 2e-3);
}

TEST_CASE("batch_norm gradients pass gradcheck and gradgradcheck on strided inputs", "[norm]") {
  // x: (N, C, H, W) as a transposed view (non-contiguous).
  const Tensor x = leaf(random({3, 2, 4, 3}).transpose(2, 3));
  const Tensor w = leaf(random({2})), b = leaf(random({2}));
  const Tensor rm = zeros({2}, kDouble), rv = ones({2}, kDouble);
  for (bool training : {true, false}) {
    INFO("training " << training);
    auto fn = [&, training](const tensor_list& in) {
      return batch_norm(in[0], in[1], in[2], rm + 0.5, rv * 2.0, training, 0.1, 1e-5);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
  }
  // (N, C) input without affine parameters, x a slice of a wider tensor.
  const Tensor x2 = leaf(random({6, 8})).slice(1, 1, 6, 2);
  auto fn2 = [](const tensor_list& in) {
    return batch_norm(in[0], Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  };
  REQUIRE_GRADCHECK(gradcheck(fn2, {x2}));
  REQUIRE_GRADCHECK(gradgradcheck(fn2, {x2}));
}

TEST_CASE("batch_norm's fused backward matches the composed one used under create_graph",
          "[norm]") {
  for (bool training : {true, false})
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 3, 5, 2}, {70, 3, 40}}) {
      INFO("training " << training << " shape " << IntArrayRef(shape));
      const Tensor x = leaf(random(shape)), w = leaf(random({3})), b = leaf(random({3}));
      const Tensor g = random(shape);
      auto grads = [&](bool create_graph) {
        const Tensor y = batch_norm(x, w, b, zeros({3}, kDouble) + 0.2, ones({3}, kDouble) * 1.5,
                                    training, 0.1, 1e-5);
        return autograd::grad({y}, {x, w, b}, {g}, std::nullopt, create_graph);
      };
      const tensor_list fused = grads(false), composed = grads(true);
      REQUIRE(composed[0].requires_grad());
      for (size_t i = 0; i < 3; ++i) require_values(fused[i], values(composed[i]), 1e-10);
    }
}

TEST_CASE("float32 batch_norm and layer_norm gradients match the float64 ones", "[norm]") {
  // Shapes long enough for the kernels' vector paths and lane flushes.
  const Tensor x = random({70, 3, 40}), w = random({3}), b = random({3}), g = random({70, 3, 40});
  const Tensor rx = random({6, 300}), rw = random({300}), rb = random({300}), rg = random({6, 300});
  for (bool training : {true, false}) {
    INFO("batch_norm training " << training);
    auto grads = [&](ScalarType t) {
      const tensor_list in = {leaf(x.to(t)), leaf(w.to(t)), leaf(b.to(t))};
      const Tensor y = batch_norm(in[0], in[1], in[2], zeros({3}, t) + 0.2, ones({3}, t) * 1.5,
                                  training, 0.1, 1e-5);
      return autograd::grad({y}, in, {g.to(t)});
    };
    const tensor_list single = grads(kFloat), twice = grads(kDouble);
    for (size_t i = 0; i < 3; ++i) require_values(single[i], values(twice[i]), 1e-3);
  }
  auto ln_grads = [&](ScalarType t) {
    const tensor_list in = {leaf(rx.to(t)), leaf(rw.to(t)), leaf(rb.to(t))};
    return autograd::grad({layer_norm(in[0], {300}, in[1], in[2])}, in, {rg.to(t)});
  };
  const tensor_list single = ln_grads(kFloat), twice = ln_grads(kDouble);
  for (size_t i = 0; i < 3; ++i) require_values(single[i], values(twice[i]), 1e-3);
}

// Note [bfloat16 batch norm on the CPU] (kernels/cpu/normalization.cpp): a bfloat16 input with
// float32 parameters is read as bfloat16 by the kernels, which must give the float32 kernels'
// results on the widened input, each bfloat16 output rounded once, bit for bit.
TEST_CASE("batch_norm on bfloat16 data with float32 parameters: the float32 result rounded once",
          "[norm][dtype]") {
  manual_seed(8);
  // Runs of 40 (vectors and a tail), 10 (a tail only) and 16 (one vector) per channel.
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{70, 3, 40}, {4, 3, 5, 2}, {3, 3, 16}}) {
    const Tensor x16 = (randn(shape) * 3 + 1).to(kBFloat16), g16 = randn(shape).to(kBFloat16);
    const Tensor w = randn({3}), b = randn({3});
    for (int mode = 0; mode < 3; ++mode) {  // training, eval, training fused with relu
      INFO("shape " << IntArrayRef(shape) << " mode " << mode);
      auto run = [&](ScalarType t) {
        const tensor_list in = {leaf(x16.to(t)), leaf(w.clone()), leaf(b.clone())};
        const Tensor mean = zeros({3}) + 0.2, var = ones({3}) * 1.5;
        const Tensor y =
            mode == 2 ? batch_norm_relu(in[0], in[1], in[2], mean, var, true, 0.1, 1e-5)
                      : batch_norm(in[0], in[1], in[2], mean, var, mode == 0, 0.1, 1e-5);
        tensor_list out = autograd::grad({y}, in, {g16.to(t)});
        out.push_back(y);
        out.push_back(mean);
        return out;
      };
      const tensor_list low = run(kBFloat16), wide = run(kFloat);
      REQUIRE(low[3].scalar_type() == kBFloat16);
      REQUIRE(low[0].scalar_type() == kBFloat16);
      CHECK(equal(low[3], wide[3].to(kBFloat16)));  // y
      CHECK(equal(low[0], wide[0].to(kBFloat16)));  // dx
      CHECK(equal(low[1], wide[1]));                // dweight, float32
      CHECK(equal(low[2], wide[2]));                // dbias, float32
      CHECK(equal(low[4], wide[4]));                // running mean, float32
    }
  }
}

TEST_CASE("batch_norm rejects bad shapes and parameters with clear messages", "[norm]") {
  const Tensor x = zeros({4, 3, 2});
  REQUIRE_THROWS_WITH(
      batch_norm(zeros({3}), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
      Catch::Contains("batch_norm: expected an input of shape (N, C) or (N, C, *), got [3]"));
  REQUIRE_THROWS_WITH(
      batch_norm(x, zeros({4}), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
      Catch::Contains("batch_norm: weight should have shape [3] (the channels, dim 1 "
                      "of the input [4, 3, 2]), got [4]"));
  REQUIRE_THROWS_WITH(
      batch_norm(x, Tensor(), zeros({3}, kDouble), Tensor(), Tensor(), true, 0.1, 1e-5),
      Catch::Contains("batch_norm: bias has dtype float64 but the input is float32"));
  REQUIRE_THROWS_WITH(batch_norm(x, Tensor(), Tensor(), zeros({2}), ones({3}), true, 0.1, 1e-5),
                      Catch::Contains("batch_norm: running_mean should have shape [3]"));
  REQUIRE_THROWS_WITH(
      batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), false, 0.1, 1e-5),
      Catch::Contains("batch_norm: running_mean and running_var are needed when not training"));
  REQUIRE_THROWS_WITH(
      batch_norm(zeros({1, 3}), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
      Catch::Contains("batch_norm: expected more than 1 value per channel when "
                      "training, got input of shape [1, 3]"));
  REQUIRE_THROWS_WITH(
      batch_norm(zeros({4, 3}, kLong), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
      Catch::Contains("batch_norm: expected a floating point input, got int64"));
}

TEST_CASE("batch_norm training on an empty batch gives an empty output and keeps the statistics",
          "[norm]") {
  // As PyTorch: only exactly one value per channel is refused.
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{0, 3}, {0, 3, 4}, {2, 3, 0}, {0, 3, 2, 2}}) {
    INFO("shape " << IntArrayRef(shape));
    const Tensor x = zeros(shape, kDouble).requires_grad_();
    const Tensor w = ones({3}, kDouble).requires_grad_(), b = zeros({3}, kDouble).requires_grad_();
    Tensor rm = full({3}, 0.5, kDouble), rv = full({3}, 2.0, kDouble);
    const Tensor y = batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
    CHECK(y.sizes() == IntArrayRef(shape));
    require_values(rm, {0.5, 0.5, 0.5});
    require_values(rv, {2, 2, 2});
    const tensor_list g = autograd::grad({y}, {x, w, b}, {zeros(shape, kDouble)});
    CHECK(g[0].sizes() == IntArrayRef(shape));
    require_values(g[1], {0, 0, 0});  // sums over no values
    require_values(g[2], {0, 0, 0});
  }
  CHECK(batch_norm(zeros({2, 0, 3}), {}, {}, {}, {}, true, 0.1, 1e-5).sizes() ==
        IntArrayRef{2, 0, 3});
}

TEST_CASE("batch_norm with eps 0 maps a constant channel to its bias, with zero gradients",
          "[norm]") {
  // As PyTorch: invstd is 0, not inf, when var + eps is 0.
  const Tensor x = full({4, 2, 3}, 2.0, kDouble).requires_grad_();
  const Tensor w = tensor({1.5, -2.0}, kDouble).requires_grad_();
  const Tensor b = tensor({0.25, 3.0}, kDouble).requires_grad_();
  const Tensor y = batch_norm(x, w, b, {}, {}, true, 0.1, 0.0);
  require_values(y.select(0, 0), {0.25, 0.25, 0.25, 3, 3, 3});
  const tensor_list g = autograd::grad({y.sum()}, {x, w, b});
  CHECK(g[0].abs().max().item<double>() == 0);
  require_values(g[1], {0, 0});
  require_values(g[2], {12, 12});
}

TEST_CASE("layer_norm normalizes over the trailing normalized_shape", "[norm]") {
  for (ScalarType t : {kFloat, kDouble})
    for (bool affine : {true, false}) {
      INFO(t << " affine " << affine);
      const Tensor x = random({2, 3, 4, 5}, t);
      const Tensor w = affine ? random({4, 5}, t) : Tensor(),
                   b = affine ? random({4, 5}, t) : Tensor();
      const Tensor y = layer_norm(x, {4, 5}, w, b, 1e-5);
      REQUIRE(y.sizes() == x.sizes());
      require_values(y, naive_layer_norm(x, 20, w, b, 1e-5), t == kFloat ? 1e-5 : 1e-12);
      const Tensor w1 = affine ? random({5}, t) : Tensor();
      require_values(layer_norm(x, {5}, w1, Tensor(), 1e-3),
                     naive_layer_norm(x, 5, w1, Tensor(), 1e-3), t == kFloat ? 1e-5 : 1e-12);
    }
  // Rows long enough for the vector path and its flushes.
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor x = random({3, 5000}, t), w = random({5000}, t), b = random({5000}, t);
    require_values(layer_norm(x, {5000}, w, b), naive_layer_norm(x, 5000, w, b, 1e-5),
                   t == kFloat ? 1e-4 : 1e-12);
  }
  REQUIRE(layer_norm(zeros({0, 4}), {4}).sizes() == IntArrayRef{0, 4});
}

TEST_CASE("layer_norm gradients pass gradcheck and gradgradcheck on strided inputs", "[norm]") {
  const Tensor x = leaf(random({3, 4, 5})).transpose(0, 2);  // (5, 4, 3), non-contiguous
  const Tensor w = leaf(random({4, 3})), b = leaf(random({4, 3}));
  auto fn = [](const tensor_list& in) { return layer_norm(in[0], {4, 3}, in[1], in[2], 1e-5); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
  // Weight only, expanded (stride 0) over the rows.
  const Tensor row = leaf(random({1, 6}));
  auto fn2 = [](const tensor_list& in) {
    return layer_norm(in[0].expand({4, 6}) * 1.0 + in[0].expand({4, 6}).square(), {6}, in[1]);
  };
  REQUIRE_GRADCHECK(gradcheck(fn2, {row, leaf(random({6}))}));
}

TEST_CASE("layer_norm's fused backward matches the composed one used under create_graph",
          "[norm]") {
  for (int64_t k : {7, 300}) {
    INFO("rows of " << k);
    const Tensor x = leaf(random({6, k})), w = leaf(random({k})), b = leaf(random({k}));
    const Tensor g = random({6, k});
    auto grads = [&](bool create_graph) {
      return autograd::grad({layer_norm(x, {k}, w, b)}, {x, w, b}, {g}, std::nullopt, create_graph);
    };
    const tensor_list fused = grads(false), composed = grads(true);
    for (size_t i = 0; i < 3; ++i) require_values(fused[i], values(composed[i]), 1e-10);
  }
}

TEST_CASE("layer_norm rejects a normalized_shape or weight that does not fit", "[norm]") {
  const Tensor x = zeros({2, 3, 5});
  REQUIRE_THROWS_WITH(layer_norm(x, {4}),
                      Catch::Contains("layer_norm: normalized_shape [4] does not match the last "
                                      "dims of the input [2, 3, 5]"));
  REQUIRE_THROWS_WITH(layer_norm(x, {1, 2, 3, 5}), Catch::Contains("does not match the last dims"));
  REQUIRE_THROWS_WITH(layer_norm(x, {5}, zeros({3})),
                      Catch::Contains("layer_norm: weight should have shape [5] (normalized_shape, "
                                      "the last dims of the input [2, 3, 5]), got [3]"));
  REQUIRE_THROWS_WITH(layer_norm(x, {3, 5}, Tensor(), zeros({5})),
                      Catch::Contains("layer_norm: bias should have shape [3, 5]"));
  REQUIRE_THROWS_WITH(layer_norm(x, {}),
                      Catch::Contains("layer_norm: normalized_shape must name at least one dim"));
}

namespace {

// group_norm by its definition, in float64: per (sample, group) the mean and
// biased variance of its channels' elements, then weight and bias per channel.
std::vector<double> naive_group_norm(const Tensor& x, int64_t groups, const Tensor& weight,
                                     const Tensor& bias, double eps) {
  const std::vector<double> v = values(x);
  const std::vector<double> w = weight.defined() ? values(weight) : std::vector<double>();
  const std::vector<double> b = bias.defined() ? values(bias) : std::vector<double>();
  const int64_t n = x.size(0), c = x.size(1), s = x.numel() / (n * c), len = c / groups * s;
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < n * groups; ++i) {
    const double* g = v.data() + i * len;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < len; ++j) mean += g[j];
    mean /= static_cast<double>(len);
    for (int64_t j = 0; j < len; ++j) var += (g[j] - mean) * (g[j] - mean);
    var /= static_cast<double>(len);
    for (int64_t j = 0; j < len; ++j) {
      const int64_t ch = i % groups * (c / groups) + j / s;
      const double y = (g[j] - mean) / std::sqrt(var + eps);
      out[i * len + j] = y * (w.empty() ? 1.0 : w[ch]) + (b.empty() ? 0.0 : b[ch]);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("group_norm normalizes each sample's channel groups, then scales per channel",
          "[norm]") {
  manual_seed(12);
  const Tensor x = random({3, 6, 4, 5}), w = random({6}), b = random({6});
  for (int64_t groups : {1, 2, 3, 6}) {
    INFO("groups " << groups);
    require_values(group_norm(x, groups, w, b, 1e-5), naive_group_norm(x, groups, w, b, 1e-5),
                   1e-10);
    require_values(group_norm(x, groups), naive_group_norm(x, groups, {}, {}, 1e-5), 1e-10);
  }
  const Tensor seq = random({2, 4, 7});  // (N, C, L)
  require_values(group_norm(seq, 2, {}, {}, 0.1), naive_group_norm(seq, 2, {}, {}, 0.1), 1e-10);
  const Tensor strided = random({4, 5, 6, 3}).transpose(0, 3);  // (3, 5, 6, 4)
  require_values(group_norm(strided, 5), naive_group_norm(strided.contiguous(), 5, {}, {}, 1e-5),
                 1e-10);
  REQUIRE(group_norm(zeros({0, 4, 3}, kDouble), 2).sizes() == IntArrayRef{0, 4, 3});
}

TEST_CASE("group_norm gradients pass gradcheck and gradgradcheck on strided inputs", "[norm]") {
  const Tensor x = leaf(random({3, 2, 6}).transpose(0, 2));  // (6, 2, 3), non-contiguous
  const Tensor w = leaf(random({2})), b = leaf(random({2}));
  auto fn = [](const tensor_list& in) { return group_norm(in[0], 2, in[1], in[2], 1e-5); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
  const Tensor x4 = leaf(random({2, 4, 3, 2}));
  auto fn4 = [](const tensor_list& in) { return group_norm(in[0], 2); };
  REQUIRE_GRADCHECK(gradcheck(fn4, {x4}));
}

TEST_CASE("GroupNorm and F::group_norm: parameters, values and errors", "[norm]") {
  namespace F = ember::nn::functional;
  nn::GroupNorm layer(nn::GroupNormOptions(2, 4).eps(1e-3));
  require_values(layer->weight, {1, 1, 1, 1});
  require_values(layer->bias, {0, 0, 0, 0});
  REQUIRE(layer->named_parameters().size() == 2);
  const Tensor x = random({2, 4, 3}, kFloat);
  require_values(layer(x), naive_group_norm(x, 2, {}, {}, 1e-3), 1e-5);
  const Tensor w = random({4}), b = random({4});
  require_values(F::group_norm(x.to(kDouble), F::GroupNormFuncOptions(4).weight(w).bias(b)),
                 naive_group_norm(x.to(kDouble), 4, w, b, 1e-5), 1e-10);
  REQUIRE(nn::GroupNorm(nn::GroupNormOptions(1, 3).affine(false))->named_parameters().size() == 0);
  std::ostringstream s;
  s << *layer;
  CHECK(s.str() == "GroupNorm(2, 4, eps=0.001, affine=true)");
  REQUIRE_THROWS_WITH(nn::GroupNorm(3, 4), Catch::Contains("GroupNorm: num_channels (4) must be "
                                                           "divisible by num_groups (3)"));
  REQUIRE_THROWS_WITH(group_norm(zeros({2, 4, 3}), 3),
                      Catch::Contains("group_norm: expected the 4 channels of input of shape "
                                      "[2, 4, 3] to be divisible by num_groups, got 3"));
  REQUIRE_THROWS_WITH(group_norm(zeros({2, 4, 3}), 2, zeros({3})),
                      Catch::Contains("group_norm: weight should have shape [4]"));
  REQUIRE_THROWS_WITH(group_norm(zeros({4}), 2),
                      Catch::Contains("group_norm: expected an input of shape (N, C, *), got [4]"));
}

TEST_CASE("InstanceNorm1d/2d and F::instance_norm normalize each sample's channels", "[norm]") {
  namespace F = ember::nn::functional;
  manual_seed(13);
  const Tensor x = random({2, 3, 4, 5});
  require_values(F::instance_norm(x), naive_group_norm(x, 3, {}, {}, 1e-5), 1e-10);
  nn::InstanceNorm2d layer(nn::InstanceNorm2dOptions(3).affine(true).eps(1e-3));
  layer->to(kDouble);
  REQUIRE(layer->named_parameters().size() == 2);
  require_values(layer(x), naive_group_norm(x, 3, {}, {}, 1e-3), 1e-10);
  // (C, H, W): one sample
  require_values(layer(x[0]), naive_group_norm(x.narrow(0, 0, 1), 3, {}, {}, 1e-3), 1e-10);
  nn::InstanceNorm1d seq(4);
  const Tensor s3 = random({2, 4, 6}, kFloat);
  require_values(seq(s3), naive_group_norm(s3, 4, {}, {}, 1e-5), 1e-5);
  REQUIRE(seq->named_parameters().size() == 0);
  std::ostringstream s;
  s << *seq;
  CHECK(s.str() == "InstanceNorm1d(4, eps=1e-05, momentum=0.1, affine=false, "
                   "track_running_stats=false)");
  REQUIRE_THROWS_WITH(nn::InstanceNorm2d(nn::InstanceNorm2dOptions(3).track_running_stats(true)),
                      Catch::Contains("InstanceNorm2d: track_running_stats is not supported"));
  REQUIRE_THROWS_WITH(layer(zeros({3, 4})), Catch::Contains("InstanceNorm2d: expected a 3-d or "
                                                            "4-d input, got shape [3, 4]"));
}
