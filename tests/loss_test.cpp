// Loss functions (nn/functional/loss*.cpp, core/ops/nn_ops/cross_entropy.cpp and the
// cross-entropy kernels): values against hand-computed numbers or float64
// loops written here (each states its formula), every reduction,
// ignore_index, label_smoothing, weights, zero-size inputs, gradients
// (gradcheck / gradgradcheck, float64) and error messages.
#include "test_helpers.h"

#include <ember/nn/functional/loss.h>
#include <ember/nn/modules/loss.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

// PyTorch's cross_entropy over class indices, as plain float64 loops. x is
// (N, C, inner) row-major. For a line with target t != ignore:
//   logp[c] = x[c] - log(sum_k exp(x[k]))
//   loss    = (1 - e) w[t] (-logp[t]) + e / C * sum_c w[c] (-logp[c])
// (w = 1 without weight); ignored lines give 0.
struct CrossEntropyRef {
  std::vector<double> lines;  // N * inner losses
  double weight_sum = 0;      // sum of w[t] over counted lines: kMean's divisor
  double sum() const {
    double s = 0;
    for (double v : lines) s += v;
    return s;
  }
};

CrossEntropyRef cross_entropy_ref(const std::vector<double>& x, int64_t n, int64_t c,
                                  int64_t inner, const std::vector<int64_t>& t,
                                  const std::vector<double>& w, int64_t ignore, double e) {
  CrossEntropyRef r;
  for (int64_t o = 0; o < n; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t target = t[o * inner + j];
      if (target == ignore) {
        r.lines.push_back(0);
        continue;
      }
      auto at = [&](int64_t k) { return x[(o * c + k) * inner + j]; };
      double sum_exp = 0;
      for (int64_t k = 0; k < c; ++k) sum_exp += std::exp(at(k));
      auto weight = [&](int64_t k) { return w.empty() ? 1.0 : w[k]; };
      auto nll = [&](int64_t k) { return std::log(sum_exp) - at(k); };
      double smooth = 0;
      for (int64_t k = 0; k < c; ++k) smooth += weight(k) * nll(k);
      r.lines.push_back((1 - e) * weight(target) * nll(target) + e / c * smooth);
      r.weight_sum += weight(target);
    }
  return r;
}

std::vector<int64_t> long_values(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

// ---------------------------------------------------------------- cross_entropy

TEST_CASE("cross_entropy of two rows matches values computed by hand", "[loss]") {
  // Row 0: -log_softmax([1, 2, 3])[2] = log(1 + e^-1 + e^-2) = 0.40760596444438
  // Row 1: -log_softmax([1, 1, 1])[0] = log 3 = 1.09861228866811
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Tensor x = tensor({{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}}, dtype);
    const Tensor t = tensor({2, 0});
    const double tol = dtype == kFloat ? 1e-6 : 1e-12;
    const double r0 = 0.40760596444438, r1 = 1.09861228866811;
    require_values(F::cross_entropy(x, t), {(r0 + r1) / 2}, tol);
    require_values(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum)),
                   {r0 + r1}, tol);
    const Tensor none = F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kNone));
    REQUIRE(none.sizes() == IntArrayRef{2});
    REQUIRE(none.scalar_type() == dtype);
    require_values(none, {r0, r1}, tol);
  }
}

TEST_CASE("cross_entropy matches a float64 loop for weights, ignore_index, label_smoothing and "
          "every reduction", "[loss]") {
  const int64_t n = 7, c = 5;
  const Tensor x = randn({n, c}, kDouble) * 3;
  const Tensor t = tensor({0, 4, 2, -1, 3, 4, 1});  // -1 is ignored below
  const Tensor w = tensor({0.5, 1.0, 2.0, 0.25, 1.5}, kDouble);
  for (bool weighted : {false, true})
    for (double e : {0.0, 0.1, 1.0}) {
      INFO("weighted " << weighted << ", label_smoothing " << e);
      const CrossEntropyRef ref = cross_entropy_ref(
          values(x), n, c, 1, long_values(t), weighted ? values(w) : std::vector<double>{}, -1, e);
      auto opts = F::CrossEntropyFuncOptions().ignore_index(-1).label_smoothing(e);
      if (weighted) opts.weight(w);
      require_values(F::cross_entropy(x, t, opts.reduction(kNone)), ref.lines);
      require_values(F::cross_entropy(x, t, opts.reduction(kSum)), {ref.sum()});
      require_values(F::cross_entropy(x, t, opts.reduction(kMean)), {ref.sum() / ref.weight_sum});
    }
}

TEST_CASE("cross_entropy over (N, C, H, W) scores takes the class dim 1", "[loss]") {
  const int64_t n = 2, c = 3, h = 2, w = 3;
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Tensor x = randn({n, c, h, w}, dtype) * 2;
    const Tensor t = tensor({{{0, 1, 2}, {2, 2, 0}}, {{1, 7, 0}, {7, 1, 2}}});  // 7: ignored
    for (double e : {0.0, 0.2}) {
      INFO(dtype << ", label_smoothing " << e);
      const CrossEntropyRef ref =
          cross_entropy_ref(values(x), n, c, h * w, long_values(t), {}, 7, e);
      auto opts = F::CrossEntropyFuncOptions().ignore_index(7).label_smoothing(e);
      const Tensor none = F::cross_entropy(x, t, opts.reduction(kNone));
      REQUIRE(none.sizes() == IntArrayRef{n, h, w});
      const double tol = dtype == kFloat ? 1e-5 : 1e-12;
      require_values(none, ref.lines, tol);
      require_values(F::cross_entropy(x, t, opts.reduction(kMean)), {ref.sum() / ref.weight_sum},
                     tol);
    }
  }
}

TEST_CASE("cross_entropy takes unbatched (C) scores with a 0-d target", "[loss]") {
  const Tensor x = tensor({1.0, 2.0, 3.0}, kDouble);
  const Tensor loss = F::cross_entropy(x, tensor(int64_t{2}));
  REQUIRE(loss.dim() == 0);
  require_values(loss, {0.40760596444438});
}

TEST_CASE("cross_entropy reads transposed and sliced scores", "[loss]") {
  const Tensor t = tensor({1, 0, 3, 2});
  const Tensor transposed = randn({5, 4}, kDouble).t();                   // (4, 5), strided
  const Tensor sliced = randn({4, 10}, kDouble).slice(1, 0, 10, 2);       // (4, 5), step 2
  for (const Tensor& x : {transposed, sliced}) {
    REQUIRE(!x.is_contiguous());
    const CrossEntropyRef ref =
        cross_entropy_ref(values(x), 4, 5, 1, long_values(t), {}, -100, 0.1);
    require_values(
        F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(kNone)),
        ref.lines);
  }
}

TEST_CASE("cross_entropy stays finite for huge scores", "[loss]") {
  // log_softmax([1000, 0])[1] = -1000 exactly in float64 (e^-1000 is 0).
  const Tensor x = tensor({{1000.0, 0.0}, {-1000.0, 1000.0}}, kFloat);
  require_values(F::cross_entropy(x, tensor({1, 1}), F::CrossEntropyFuncOptions().reduction(kNone)),
                 {1000.0, 0.0}, 1e-6);
}

TEST_CASE("cross_entropy with every target ignored gives NaN for kMean and 0 for kSum, as PyTorch",
          "[loss]") {
  const Tensor x = randn({3, 4}, kDouble);
  const Tensor t = full({3}, -100, kLong);
  REQUIRE(std::isnan(F::cross_entropy(x, t).item<double>()));
  REQUIRE(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum)).item<double>() == 0);
}

TEST_CASE("cross_entropy of zero rows: kNone empty, kSum 0, kMean NaN, gradient empty", "[loss]") {
  const Tensor x = leaf(zeros({0, 4}, kDouble));
  const Tensor t = zeros({0}, kLong);
  REQUIRE(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kNone)).sizes() ==
          IntArrayRef{0});
  const Tensor sum = F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum));
  REQUIRE(sum.item<double>() == 0);
  REQUIRE(std::isnan(F::cross_entropy(x, t).item<double>()));
  sum.backward();
  REQUIRE(x.grad().sizes() == IntArrayRef{0, 4});
}

TEST_CASE("cross_entropy gradient is softmax minus the smoothed one-hot (values by hand)",
          "[loss]") {
  // x = [0, 0], t = 0, e = 0.2, kSum: softmax = [0.5, 0.5], the smoothed
  // target = [0.8 + 0.1, 0.1], so dx = [0.5 - 0.9, 0.5 - 0.1] = [-0.4, 0.4].
  const Tensor x = leaf(zeros({1, 2}, kDouble));
  auto opts = F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(kSum);
  F::cross_entropy(x, tensor({0}), opts).backward();
  require_values(x.grad(), {-0.4, 0.4});
}

TEST_CASE("cross_entropy gradients pass gradcheck (weights, ignore_index, smoothing, reductions, "
          "spatial, non-contiguous)", "[loss]") {
  const Tensor w = tensor({0.5, 1.0, 2.0, 0.25}, kDouble);
  const Tensor t2 = tensor({0, 3, -1, 2, 1});
  const Tensor t4 = tensor({{{0, 3}, {-1, 2}}, {{1, 1}, {2, -1}}});
  for (Reduction r : {kNone, kMean, kSum})
    for (double e : {0.0, 0.3})
      for (bool weighted : {false, true}) {
        INFO("reduction " << r << ", label_smoothing " << e << ", weighted " << weighted);
        auto opts = F::CrossEntropyFuncOptions().ignore_index(-1).label_smoothing(e).reduction(r);
        if (weighted) opts.weight(w);
        auto fn = [opts](const Tensor& t) {
          return [opts, t](const tensor_list& in) { return F::cross_entropy(in[0], t, opts); };
        };
        REQUIRE_GRADCHECK(gradcheck(fn(t2), {leaf(randn({5, 4}, kDouble))}));
        REQUIRE_GRADCHECK(gradcheck(fn(t2), {leaf(randn({4, 5}, kDouble)).t()}));
        REQUIRE_GRADCHECK(gradcheck(fn(t4), {leaf(randn({2, 4, 2, 2}, kDouble))}));
      }
}

TEST_CASE("cross_entropy float32 gradients agree with the float64 ones (rows and spatial)",
          "[loss]") {
  const Tensor w = tensor({0.5, 1.0, 2.0, 0.25}, kDouble);
  const Tensor rows = randn({37, 4}, kDouble), spatial = randn({3, 4, 5}, kDouble);
  const Tensor t_rows = randint(4, {37}), t_spatial = randint(4, {3, 5});
  for (const auto& [x64, t] : {std::pair{rows, t_rows}, std::pair{spatial, t_spatial}}) {
    auto opts = F::CrossEntropyFuncOptions().label_smoothing(0.1).ignore_index(2);
    std::vector<double> grads[2];
    for (ScalarType dtype : {kFloat, kDouble}) {
      const Tensor x = leaf(x64.to(dtype));
      F::cross_entropy(x, t, opts.weight(w.to(dtype))).backward();
      grads[dtype == kDouble] = values(x.grad());
    }
    require_values(tensor(grads[0], kDouble), grads[1], 1e-6);
  }
}

TEST_CASE("cross_entropy twice differentiable: gradgradcheck through the create_graph backward",
          "[loss]") {
  const Tensor w = tensor({0.5, 1.0, 2.0}, kDouble);
  const Tensor t = tensor({{0, 2}, {-1, 1}});  // (N=2, d=2)
  for (Reduction r : {kNone, kMean, kSum}) {
    INFO("reduction " << r);
    auto opts =
        F::CrossEntropyFuncOptions().ignore_index(-1).label_smoothing(0.1).reduction(r).weight(w);
    REQUIRE_GRADCHECK(gradgradcheck(
        [opts, t](const tensor_list& in) { return F::cross_entropy(in[0], t, opts); },
        {leaf(randn({2, 3, 2}, kDouble))}));
  }
}

TEST_CASE("cross_entropy equals nll_loss of log_softmax", "[loss]") {
  const Tensor x = randn({6, 4}, kDouble);
  const Tensor t = tensor({0, 3, 3, 1, 2, 0});
  const Tensor w = tensor({1.0, 0.5, 2.0, 3.0}, kDouble);
  require_values(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(w)),
                 values(F::nll_loss(log_softmax(x, 1), t, F::NLLLossFuncOptions().weight(w))));
}

TEST_CASE("cross_entropy with class probabilities matches a float64 loop", "[loss]") {
  // loss[n] = -sum_c w[c] q[n, c] log_softmax(x[n])[c], q = (1 - e) p + e / C;
  // kMean divides the sum by N.
  const int64_t n = 3, c = 4;
  const Tensor x = randn({n, c}, kDouble);
  const Tensor p = softmax(randn({n, c}, kDouble), 1);
  const Tensor w = tensor({1.0, 0.5, 2.0, 3.0}, kDouble);
  const std::vector<double> xv = values(x), pv = values(p), wv = values(w);
  std::vector<double> want;
  for (int64_t i = 0; i < n; ++i) {
    double lse = 0, loss = 0;
    for (int64_t k = 0; k < c; ++k) lse += std::exp(xv[i * c + k]);
    for (int64_t k = 0; k < c; ++k)
      loss -= wv[k] * (0.8 * pv[i * c + k] + 0.2 / c) * (xv[i * c + k] - std::log(lse));
    want.push_back(loss);
  }
  auto opts = F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.2);
  require_values(F::cross_entropy(x, p, opts.reduction(kNone)), want);
  require_values(F::cross_entropy(x, p, opts.reduction(kMean)),
                 {(want[0] + want[1] + want[2]) / n});
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) { return F::cross_entropy(in[0], in[1]); },
      {leaf(randn({n, c}, kDouble)), leaf(p)}));
}

TEST_CASE("cross_entropy errors name the bad target, shape, dtype or option", "[loss]") {
  const Tensor x = randn({3, 4});
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, 4, 1})),
                      Catch::Contains("cross_entropy: target 4 is out of bounds for 4 classes "
                                      "(valid range [0, 3], or ignore_index -100)"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, -2, 1})),
                      Catch::Contains("cross_entropy: target -2 is out of bounds"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, 1})),
                      Catch::Contains("cross_entropy: expected a target of shape [3] for input "
                                      "[3, 4], got [2]"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({true, false, true})),
                      Catch::Contains("cross_entropy: expected an int64 target of class indices, "
                                      "got bool"));
  REQUIRE_THROWS_WITH(F::cross_entropy(tensor({0, 1, 2}), tensor(int64_t{0})),
                      Catch::Contains("cross_entropy: expected a floating point input, got int64"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, 1, 2}),
                                       F::CrossEntropyFuncOptions().weight(ones({3}))),
                      Catch::Contains("cross_entropy: expected weight of shape [4] (one per "
                                      "class), got [3]"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, 1, 2}),
                                       F::CrossEntropyFuncOptions().weight(ones({4}, kDouble))),
                      Catch::Contains("cross_entropy: expected weight of the input's dtype "
                                      "float32, got float64"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, tensor({0, 1, 2}),
                                       F::CrossEntropyFuncOptions().label_smoothing(1.5)),
                      Catch::Contains("cross_entropy: label_smoothing must be in [0, 1], got 1.5"));
  REQUIRE_THROWS_WITH(F::cross_entropy(x, randn({3, 5})),
                      Catch::Contains("cross_entropy: expected a target of the input's shape "
                                      "[3, 4], got [3, 5]"));
}

// ---------------------------------------------------------------- nll_loss

TEST_CASE("nll_loss picks -weight[t] * input[t]; kMean divides by the counted weights", "[loss]") {
  // input rows [-1, -2, -3], [-4, -5, -6], [-7, -8, -9]; targets 2, 0, ignored;
  // weight [2, 1, 0.5]: losses 0.5 * 3 = 1.5, 2 * 4 = 8, 0; kMean 9.5 / 2.5 = 3.8.
  const Tensor x = -arange(1, 10, kDouble).view({3, 3});
  const Tensor t = tensor({2, 0, 1});
  auto opts = F::NLLLossFuncOptions().weight(tensor({2.0, 1.0, 0.5}, kDouble)).ignore_index(1);
  require_values(F::nll_loss(x, t, opts.reduction(kNone)), {1.5, 8.0, 0.0});
  require_values(F::nll_loss(x, t, opts.reduction(kSum)), {9.5});
  require_values(F::nll_loss(x, t, opts.reduction(kMean)), {3.8});
  // Without weight kMean divides by the 2 counted targets.
  require_values(F::nll_loss(x, t, F::NLLLossFuncOptions().ignore_index(1)), {3.5});
}

TEST_CASE("nll_loss: ignored targets get a zero gradient even when no weight is counted",
          "[loss]") {
  // As PyTorch: an ignored row takes no part; kMean's 0 / 0 reaches only the
  // counted rows (here the target of class weight 0).
  const Tensor x = zeros({2, 3}, kDouble).requires_grad_();
  F::nll_loss(x, tensor({int64_t(-100), int64_t(-100)})).backward();
  require_values(x.grad(), {0, 0, 0, 0, 0, 0});
  const Tensor y = zeros({2, 3}, kDouble).requires_grad_();
  F::nll_loss(y, tensor({int64_t(1), int64_t(-100)}),
              F::NLLLossFuncOptions().weight(tensor({1.0, 0.0, 1.0}, kDouble)))
      .backward();
  std::vector<double> g = values(y.grad());
  CHECK(std::isnan(g[1]));
  g[1] = 0;
  CHECK(g == std::vector<double>{0, 0, 0, 0, 0, 0});
  // An infinite score in an ignored row leaves the loss finite.
  const Tensor z = tensor({{1.0, -2.0}, {-std::numeric_limits<double>::infinity(), 5.0}}, kDouble);
  require_values(F::nll_loss(z, tensor({int64_t(1), int64_t(-100)})), {2.0});
}

TEST_CASE("nll_loss over (N, C, d) and unbatched (C) inputs", "[loss]") {
  const Tensor x = -arange(12, kDouble).view({2, 3, 2});  // x[n, c, j] = -(6n + 2c + j)
  const Tensor t = tensor({{2, 0}, {1, 2}});
  // -x[0, 2, 0] = 4, -x[0, 0, 1] = 1, -x[1, 1, 0] = 8, -x[1, 2, 1] = 11
  require_values(F::nll_loss(x, t, F::NLLLossFuncOptions().reduction(kNone)), {4, 1, 8, 11});
  require_values(F::nll_loss(tensor({-0.5, -1.5}, kDouble), tensor(int64_t{1})), {1.5});
}

TEST_CASE("nll_loss gradients pass gradcheck and gradgradcheck", "[loss]") {
  const Tensor t = tensor({{2, 0}, {-1, 2}});
  for (Reduction r : {kNone, kMean, kSum}) {
    INFO("reduction " << r);
    auto opts = F::NLLLossFuncOptions().ignore_index(-1).reduction(r)
                    .weight(tensor({0.5, 2.0, 1.5}, kDouble));
    auto fn = [opts, t](const tensor_list& in) { return F::nll_loss(in[0], t, opts); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(randn({2, 3, 2}, kDouble))}));
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(randn({2, 2, 3}, kDouble)).transpose(1, 2)}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(randn({2, 3, 2}, kDouble))}));
  }
}

TEST_CASE("nll_loss errors name the bad target and shapes", "[loss]") {
  const Tensor x = randn({2, 3});
  REQUIRE_THROWS_WITH(F::nll_loss(x, tensor({0, 3})),
                      Catch::Contains("nll_loss: target 3 is out of bounds for 3 classes"));
  REQUIRE_THROWS_WITH(F::nll_loss(x, tensor({0.0, 1.0})),
                      Catch::Contains("nll_loss: expected an int64 target of class indices, got "
                                      "float32"));
  REQUIRE_THROWS_WITH(F::nll_loss(x, tensor({{0, 1}})),
                      Catch::Contains("nll_loss: expected a target of shape [2] for input [2, 3], "
                                      "got [1, 2]"));
  REQUIRE_THROWS_WITH(F::nll_loss(randn({}), tensor(int64_t{0})),
                      Catch::Contains("nll_loss: expected class scores of shape (C), (N, C) or "
                                      "(N, C, d1, ...), got shape []"));
}

// ---------------------------------------------------------------- regression losses

TEST_CASE("mse_loss, l1_loss and smooth_l1_loss match values by hand in every reduction",
          "[loss]") {
  // d = input - target = [-2, -0.5, 0, 0.25, 3]
  const Tensor x = tensor({-1.0, 0.5, 2.0, 1.25, 4.0}, kDouble);
  const Tensor y = tensor({1.0, 1.0, 2.0, 1.0, 1.0}, kDouble);
  // d^2 = [4, 0.25, 0, 0.0625, 9]: sum 13.3125
  require_values(F::mse_loss(x, y, F::MSELossFuncOptions().reduction(kNone)),
                 {4, 0.25, 0, 0.0625, 9});
  require_values(F::mse_loss(x, y), {13.3125 / 5});
  require_values(F::mse_loss(x, y, F::MSELossFuncOptions().reduction(kSum)), {13.3125});
  // |d| sum 5.75
  require_values(F::l1_loss(x, y, F::L1LossFuncOptions().reduction(kNone)), {2, 0.5, 0, 0.25, 3});
  require_values(F::l1_loss(x, y), {5.75 / 5});
  require_values(F::l1_loss(x, y, F::L1LossFuncOptions().reduction(kSum)), {5.75});
  // beta 1: |d| < 1 -> 0.5 d^2, else |d| - 0.5: [1.5, 0.125, 0, 0.03125, 2.5], sum 4.15625
  require_values(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().reduction(kNone)),
                 {1.5, 0.125, 0, 0.03125, 2.5});
  require_values(F::smooth_l1_loss(x, y), {4.15625 / 5});
  require_values(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().reduction(kSum)), {4.15625});
  // beta 2.5: |d| < 2.5 -> 0.2 d^2, else |d| - 1.25: [0.8, 0.05, 0, 0.0125, 1.75]
  require_values(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(2.5).reduction(kNone)),
                 {0.8, 0.05, 0, 0.0125, 1.75});
  // beta 0 is the L1 loss.
  require_values(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0)), {5.75 / 5});
}

TEST_CASE("regression losses broadcast the target as PyTorch and keep float32", "[loss]") {
  const Tensor x = tensor({{1.0, 2.0}, {3.0, 5.0}});
  const Tensor y = tensor({1.0, 1.0});  // (2) broadcasts over the rows
  // d = [[0, 1], [2, 4]]
  const Tensor mse = F::mse_loss(x, y, F::MSELossFuncOptions().reduction(kNone));
  REQUIRE(mse.scalar_type() == kFloat);
  require_values(mse, {0, 1, 4, 16});
  require_values(F::l1_loss(x, y), {7.0 / 4});
}

TEST_CASE("regression losses of zero elements: kSum 0, kMean NaN", "[loss]") {
  const Tensor x = zeros({0, 3}), y = zeros({0, 3});
  REQUIRE(F::mse_loss(x, y, F::MSELossFuncOptions().reduction(kSum)).item<double>() == 0);
  REQUIRE(std::isnan(F::l1_loss(x, y).item<double>()));
  REQUIRE(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().reduction(kNone)).sizes() ==
          IntArrayRef{0, 3});
}

TEST_CASE("regression loss gradients pass gradcheck for input and target (broadcast, "
          "transposed, expanded)", "[loss]") {
  // Differences kept away from 0 (l1's kink) and from +-beta (smooth_l1's seam).
  const Tensor base = tensor({{-2.1, -0.4, 0.3}, {0.7, 1.6, -1.3}}, kDouble);
  const Tensor y_row = tensor({0.05, -0.1, 0.15}, kDouble);
  using LossFn = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::vector<LossFn> losses = {
      [](const Tensor& a, const Tensor& b) { return F::mse_loss(a, b); },
      [](const Tensor& a, const Tensor& b) {
        return F::l1_loss(a, b, F::L1LossFuncOptions().reduction(kSum));
      },
      [](const Tensor& a, const Tensor& b) {
        return F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().beta(1.0).reduction(kNone));
      },
  };
  for (size_t i = 0; i < losses.size(); ++i) {
    INFO("loss " << i);
    auto fn = [f = losses[i]](const tensor_list& in) { return f(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base), leaf(y_row)}));                    // broadcast
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base.t().contiguous()).t(), leaf(y_row)}));  // transposed
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base), y_row.view({1, 3}).expand({2, 3})}));  // expanded
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base), leaf(y_row)}));
  }
}

TEST_CASE("regression loss errors name the loss and the shapes", "[loss]") {
  REQUIRE_THROWS_WITH(F::mse_loss(randn({2, 3}), randn({2, 4})),
                      Catch::Contains("mse_loss: shapes [2, 3] and [2, 4] cannot be broadcast"));
  REQUIRE_THROWS_WITH(F::l1_loss(randn({3}), randn({2})),
                      Catch::Contains("l1_loss: shapes [3] and [2]"));
  REQUIRE_THROWS_WITH(F::smooth_l1_loss(randn({3}), randn({3}),
                                        F::SmoothL1LossFuncOptions().beta(-1)),
                      Catch::Contains("smooth_l1_loss: beta must be >= 0, got -1"));
  REQUIRE_THROWS_WITH(F::mse_loss(tensor({1, 2}), tensor({1, 2})),
                      Catch::Contains("mse_loss: expected a floating point input, got int64"));
}

// ---------------------------------------------------------------- binary cross-entropy

TEST_CASE("binary_cross_entropy matches -w (y log x + (1 - y) log(1 - x)) in float64", "[loss]") {
  const std::vector<double> xv = {0.1, 0.5, 0.9, 0.3}, yv = {0.0, 1.0, 1.0, 0.25},
                            wv = {1.0, 2.0, 0.5, 3.0};
  std::vector<double> want;
  for (size_t i = 0; i < xv.size(); ++i)
    want.push_back(-wv[i] * (yv[i] * std::log(xv[i]) + (1 - yv[i]) * std::log(1 - xv[i])));
  const Tensor x = tensor(xv, kDouble), y = tensor(yv, kDouble), w = tensor(wv, kDouble);
  auto opts = F::BinaryCrossEntropyFuncOptions().weight(w);
  require_values(F::binary_cross_entropy(x, y, opts.reduction(kNone)), want);
  const double sum = want[0] + want[1] + want[2] + want[3];
  require_values(F::binary_cross_entropy(x, y, opts.reduction(kSum)), {sum});
  require_values(F::binary_cross_entropy(x, y, opts.reduction(kMean)), {sum / 4});
}

TEST_CASE("binary_cross_entropy clamps log at -100: inputs 0 and 1 give finite losses and "
          "gradients", "[loss]") {
  // x = 0, y = 1: -log(0) clamped -> 100; x = 1, y = 1: 0.
  const Tensor x = leaf(tensor({0.0, 1.0, 1.0}, kDouble));
  const Tensor y = tensor({1.0, 1.0, 0.0}, kDouble);
  const Tensor loss =
      F::binary_cross_entropy(x, y, F::BinaryCrossEntropyFuncOptions().reduction(kNone));
  require_values(loss, {100, 0, 100});
  loss.sum().backward();
  for (double g : values(x.grad())) REQUIRE(std::isfinite(g));
}

TEST_CASE("binary_cross_entropy_with_logits matches the float64 formula, also for huge logits",
          "[loss]") {
  // -w (pw y log(sigmoid(x)) + (1 - y) log(1 - sigmoid(x))), with
  // log(sigmoid(x)) = -log(1 + exp(-x)) and log(1 - sigmoid(x)) = -x - log(1 + exp(-x)),
  // finite in float64 for |x| <= 700.
  const std::vector<double> xv = {-3.0, -0.5, 0.0, 2.0, 100.0, -100.0};
  const std::vector<double> yv = {0.0, 1.0, 0.5, 1.0, 0.0, 1.0};
  const std::vector<double> pw = {1.5, 2.0};  // per column of (3, 2)
  const std::vector<double> w = {0.5, 1.0, 2.0, 1.0, 1.0, 0.25};
  std::vector<double> want, want_plain;
  for (size_t i = 0; i < xv.size(); ++i) {
    const double sp = std::log1p(std::exp(-xv[i]));
    const double log_sig = -sp, log_one_minus = -xv[i] - sp;
    want.push_back(-w[i] * (pw[i % 2] * yv[i] * log_sig + (1 - yv[i]) * log_one_minus));
    want_plain.push_back(-(yv[i] * log_sig + (1 - yv[i]) * log_one_minus));
  }
  for (ScalarType dtype : {kFloat, kDouble}) {
    INFO(dtype);
    const Tensor x = tensor(xv, dtype).view({3, 2}), y = tensor(yv, dtype).view({3, 2});
    const double tol = dtype == kFloat ? 1e-6 : 1e-12;
    auto opts = F::BinaryCrossEntropyWithLogitsFuncOptions()
                    .pos_weight(tensor(pw, dtype))
                    .weight(tensor(w, dtype).view({3, 2}));
    require_values(F::binary_cross_entropy_with_logits(x, y, opts.reduction(kNone)), want, tol);
    double sum = 0;
    for (double v : want_plain) sum += v;
    require_values(F::binary_cross_entropy_with_logits(x, y), {sum / 6}, tol);
  }
}

TEST_CASE("binary_cross_entropy_with_logits gradient at logit 0 is sigmoid(0) - y", "[loss]") {
  const Tensor x = leaf(zeros({3}, kDouble));
  F::binary_cross_entropy_with_logits(x, tensor({0.0, 1.0, 0.25}, kDouble),
                                      F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kSum))
      .backward();
  require_values(x.grad(), {0.5, -0.5, 0.25});
}

TEST_CASE("binary cross-entropy gradients pass gradcheck for input, target, weight and "
          "pos_weight", "[loss]") {
  const Tensor p = tensor({{0.2, 0.7, 0.45}, {0.9, 0.15, 0.6}}, kDouble);
  const Tensor y = tensor({{0.0, 1.0, 0.3}, {1.0, 0.2, 0.0}}, kDouble);
  const Tensor w_row = tensor({0.5, 2.0, 1.0}, kDouble);
  for (Reduction r : {kNone, kMean, kSum}) {
    INFO("reduction " << r);
    auto bce = [r](const tensor_list& in) {
      return F::binary_cross_entropy(in[0], in[1],
                                     F::BinaryCrossEntropyFuncOptions().weight(in[2]).reduction(r));
    };
    REQUIRE_GRADCHECK(gradcheck(bce, {leaf(p), leaf(y), leaf(w_row)}));
    REQUIRE_GRADCHECK(gradcheck(bce, {leaf(p.t().contiguous()).t(), leaf(y), w_row}));
    REQUIRE_GRADCHECK(gradgradcheck(bce, {leaf(p), leaf(y), w_row}));
    auto logits = [r](const tensor_list& in) {
      return F::binary_cross_entropy_with_logits(
          in[0], in[1],
          F::BinaryCrossEntropyWithLogitsFuncOptions()
              .pos_weight(in[2])
              .weight(in[3])
              .reduction(r));
    };
    const Tensor x = tensor({{-1.5, 0.0, 0.8}, {2.5, -0.3, 4.0}}, kDouble);
    REQUIRE_GRADCHECK(gradcheck(logits, {leaf(x), leaf(y), leaf(w_row * 1.5), leaf(w_row)}));
    REQUIRE_GRADCHECK(gradcheck(logits, {leaf(x.t().contiguous()).t(), y, w_row, w_row}));
    REQUIRE_GRADCHECK(gradgradcheck(logits, {leaf(x), leaf(y), leaf(w_row * 1.5), w_row}));
    auto plain_logits = [r](const tensor_list& in) {
      return F::binary_cross_entropy_with_logits(
          in[0], in[1], F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(r));
    };
    REQUIRE_GRADCHECK(gradcheck(plain_logits, {leaf(x), leaf(y)}));
    REQUIRE_GRADCHECK(gradgradcheck(plain_logits, {leaf(x), leaf(y)}));
  }
}

TEST_CASE("binary cross-entropy of zero elements: kSum 0, kMean NaN", "[loss]") {
  const Tensor x = zeros({0}), y = zeros({0});
  REQUIRE(F::binary_cross_entropy(x, y, F::BinaryCrossEntropyFuncOptions().reduction(kSum))
              .item<double>() == 0);
  REQUIRE(std::isnan(F::binary_cross_entropy_with_logits(x, y).item<double>()));
}

TEST_CASE("binary cross-entropy errors name the loss, the shapes, dtypes and bad inputs",
          "[loss]") {
  REQUIRE_THROWS_WITH(F::binary_cross_entropy(tensor({0.5, 1.5}), tensor({0.0, 1.0})),
                      Catch::Contains("binary_cross_entropy: every input value must be a "
                                      "probability in [0, 1], got values in [0.5, 1.5]"));
  REQUIRE_THROWS_WITH(F::binary_cross_entropy(tensor({0.5, 0.5}), tensor({{0.0, 1.0}})),
                      Catch::Contains("binary_cross_entropy: expected a target of the input's "
                                      "shape [2], got [1, 2]"));
  REQUIRE_THROWS_WITH(F::binary_cross_entropy_with_logits(tensor({0.5}), tensor({1})),
                      Catch::Contains("binary_cross_entropy_with_logits: expected a target of the "
                                      "input's dtype float32, got int64"));
  REQUIRE_THROWS_WITH(
      F::binary_cross_entropy_with_logits(
          randn({2, 3}), randn({2, 3}),
          F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(ones({2}))),
      Catch::Contains("binary_cross_entropy_with_logits: pos_weight of shape [2] does not "
                      "broadcast to the input's shape [2, 3]"));
  REQUIRE_THROWS_WITH(
      F::binary_cross_entropy(full({2}, 0.5), full({2}, 0.5),
                              F::BinaryCrossEntropyFuncOptions().weight(ones({2}, kDouble))),
      Catch::Contains("binary_cross_entropy: expected weight of the input's dtype float32, got "
                      "float64"));
}

// ---------------------------------------------------------------- modules

TEST_CASE("loss modules forward to the functional losses with their options", "[loss]") {
  const Tensor x = randn({4, 3}, kDouble), y = randn({4, 3}, kDouble);
  const Tensor p = sigmoid(x), q = rand({4, 3}, kDouble);
  const Tensor labels = tensor({0, 2, 1, 2});
  const Tensor w = tensor({0.5, 1.0, 2.0}, kDouble);
  auto same = [](const Tensor& a, const Tensor& b) { require_values(a, values(b), 0); };
  same(nn::MSELoss()(x, y), F::mse_loss(x, y));
  same(nn::L1Loss(nn::L1LossOptions().reduction(kSum))(x, y),
       F::l1_loss(x, y, F::L1LossFuncOptions().reduction(kSum)));
  same(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5))(x, y),
       F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.5)));
  same(nn::NLLLoss(nn::NLLLossOptions().weight(w))(log_softmax(x, 1), labels),
       F::nll_loss(log_softmax(x, 1), labels, F::NLLLossFuncOptions().weight(w)));
  auto ce = nn::CrossEntropyLossOptions().weight(w).label_smoothing(0.1).ignore_index(1);
  same(nn::CrossEntropyLoss(ce)(x, labels), F::cross_entropy(x, labels, ce));
  same(nn::BCELoss(nn::BCELossOptions().weight(w))(p, q),
       F::binary_cross_entropy(p, q, F::BinaryCrossEntropyFuncOptions().weight(w)));
  auto bce = nn::BCEWithLogitsLossOptions().pos_weight(w * 2).weight(w).reduction(kNone);
  same(nn::BCEWithLogitsLoss(bce)(x, q), F::binary_cross_entropy_with_logits(x, q, bce));
}

TEST_CASE("loss modules keep their weights as buffers that to() converts", "[loss]") {
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(tensor({1.0f, 2.0f})));
  REQUIRE(ce->named_buffers().keys() == std::vector<std::string>{"weight"});
  REQUIRE(ce->parameters().empty());
  ce->to(kDouble);
  REQUIRE(ce->weight.scalar_type() == kDouble);
  // x = [0, 0] per row: each loss is log 2; kMean weighs them 1 and 2: log 2.
  require_values(ce(zeros({2, 2}, kDouble), tensor({0, 1})), {std::log(2.0)});
  nn::BCEWithLogitsLoss logits(nn::BCEWithLogitsLossOptions().pos_weight(ones({3})));
  REQUIRE(logits->named_buffers().keys() == std::vector<std::string>{"pos_weight"});
  REQUIRE(nn::MSELoss()->named_buffers().is_empty());
}

TEST_CASE("loss modules print their names", "[loss]") {
  std::ostringstream os;
  os << nn::CrossEntropyLoss() << " " << nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5));
  REQUIRE(os.str() == "CrossEntropyLoss() SmoothL1Loss(beta=0.5)");
}
