// softmax, log_softmax, logsumexp: values against float64 loops written here,
// numerical stability, dtypes, non-contiguous inputs, derivatives.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {

// Reference: softmax (or log-softmax) along dim d of x, by a float64 loop over
// lines, using the plain formula exp(x) / sum(exp(x)) (inputs are small).
std::vector<double> naive_softmax(const Tensor& x, int64_t d, bool log) {
  const std::vector<double> v = values(x);
  int64_t outer = 1, n = x.size(d), inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= x.size(i);
  for (int64_t i = d + 1; i < x.dim(); ++i) inner *= x.size(i);
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += std::exp(v[(o * n + k) * inner + j]);
      for (int64_t k = 0; k < n; ++k) {
        const double e = v[(o * n + k) * inner + j];
        out[(o * n + k) * inner + j] = log ? e - std::log(s) : std::exp(e) / s;
      }
    }
  return out;
}


}  // namespace

TEST_CASE("softmax and log_softmax match float64 loops along every dim", "[softmax]") {
  const Tensor x = randn({3, 4, 5}, kDouble);
  for (int64_t d = 0; d < 3; ++d) {
    INFO("dim " << d);
    const Tensor y = x.softmax(d);
    REQUIRE(y.sizes() == x.sizes());
    require_values(y, naive_softmax(x, d, false));
    require_values(x.log_softmax(d), naive_softmax(x, d, true));
    require_values(softmax(x, d - 3), naive_softmax(x, d, false));  // negative dim
  }
}

TEST_CASE("softmax of transposed and sliced inputs matches the contiguous copy", "[softmax]") {
  const Tensor base = randn({6, 5, 4}, kDouble);
  for (const Tensor& x : {base.transpose(0, 2), base.slice(0, 1, 6, 2)}) {
    for (int64_t d = 0; d < 3; ++d) {
      require_values(x.softmax(d), naive_softmax(x.contiguous(), d, false));
      require_values(x.log_softmax(d), naive_softmax(x.contiguous(), d, true));
    }
  }
}

TEST_CASE("softmax over an outer dim with wide rows (blocks of columns)", "[softmax]") {
  const Tensor x =
      randn({7, 2100}, kDouble);  // softmax over dim 0: columns side by side, in blocks
  require_values(x.softmax(0), naive_softmax(x, 0, false));
  require_values(x.log_softmax(0), naive_softmax(x, 0, true));
  require_values(logsumexp(x.t(), {1}), values(x.exp().sum({0}).log()));
  const Tensor big = randn({3000, 40}, kFloat);  // enough lines to run in parallel
  require_values(big.softmax(1), naive_softmax(big, 1, false), 1e-6);
  require_values(big.log_softmax(0), naive_softmax(big, 0, true), 1e-5);
}

TEST_CASE("softmax is numerically stable for large and infinite inputs", "[softmax]") {
  const Tensor x = tensor({1000.0f, 1001.0f, 1002.0f});
  const std::vector<double> want = naive_softmax(tensor({0.0, 1.0, 2.0}, kDouble), 0, false);
  require_values(x.softmax(0), want, 1e-6);
  require_values(tensor({-1000.0f, -1001.0f}).log_softmax(0),
                 naive_softmax(tensor({0.0, -1.0}, kDouble), 0, true), 1e-6);
  const double inf = std::numeric_limits<double>::infinity();
  require_values(tensor({-inf, 0.0, -inf}, kDouble).softmax(0), {0, 1, 0});
  require_values(tensor({-inf, 0.0}, kDouble).log_softmax(0), {-inf, 0});
  // As PyTorch: a line holding +inf, or only -inf, is NaN throughout (inf - inf).
  for (const Tensor& line : {tensor({inf, 1.0, 2.0}, kDouble), tensor({-inf, -inf}, kDouble),
                             tensor({{1.0, inf}, {2.0, 3.0}}, kDouble).t()})
    for (const Tensor& y : {line.softmax(0), line.log_softmax(0)}) {
      const Tensor line_of_inf = y.dim() == 2 ? y.select(1, 0) : y;  // the 2-d case's column 0
      CHECK(isnan(line_of_inf).all().item<bool>());
      if (y.dim() == 2) CHECK_FALSE(isnan(y.select(1, 1)).any().item<bool>());
    }
}

TEST_CASE("softmax dtypes: float32 stays float32, dtype converts, int64 needs a dtype",
          "[softmax]") {
  REQUIRE(randn({2, 3}).softmax(1).scalar_type() == kFloat);
  const Tensor x = randn({2, 3});
  const Tensor y = x.softmax(1, kDouble);
  REQUIRE(y.scalar_type() == kDouble);
  require_values(y, naive_softmax(x.to(kDouble), 1, false), 1e-12);
  const Tensor i = tensor({{1, 2}, {3, 4}}, kLong);
  REQUIRE_THROWS_WITH(i.softmax(1),
                      Catch::Contains("softmax: expected a floating point tensor, got int64"));
  require_values(i.log_softmax(1, kDouble), naive_softmax(i.to(kDouble), 1, true));
  REQUIRE_THROWS_WITH(
      randn({2, 3}).softmax(2),
      Catch::Contains("softmax: dimension 2 is out of range for a tensor of shape [2, 3]"));
  REQUIRE_THROWS_WITH(randn({2, 3}).log_softmax(-3),
                      Catch::Contains("log_softmax: dimension -3 is out of range"));
}

TEST_CASE("softmax of zero-size and 0-d inputs", "[softmax]") {
  REQUIRE(zeros({0, 4}).softmax(1).sizes() == IntArrayRef({0, 4}));
  REQUIRE(zeros({3, 0}).log_softmax(1).sizes() == IntArrayRef({3, 0}));
  require_values(tensor(2.5).softmax(0), {1});
  require_values(tensor(2.5).log_softmax(-1), {0});
}

TEST_CASE("logsumexp matches a float64 loop over dims, keepdim, and handles infinities",
          "[softmax]") {
  const Tensor x = randn({3, 4, 5}, kDouble);
  const Tensor xt = x.transpose(0, 2);           // (5, 4, 3)
  auto naive = [](const Tensor& t, int64_t d) {  // over one dim, via sum
    std::vector<double> v = values(t.exp().sum({d}));
    for (double& e : v) e = std::log(e);
    return v;
  };
  for (int64_t d = 0; d < 3; ++d) {
    require_values(logsumexp(x, {d}), naive(x, d));
    require_values(logsumexp(xt, {d}), naive(xt, d));
    REQUIRE(logsumexp(x, {d}, true).size(d) == 1);
  }
  double total = 0;
  for (double v : values(x)) total += std::exp(v);
  require_values(logsumexp(x, {0, 1, 2}), {std::log(total)});
  require_values(logsumexp(x, {2, 0}), values(logsumexp(logsumexp(x, {2}), {0})));
  const double inf = std::numeric_limits<double>::infinity();
  require_values(logsumexp(tensor({-inf, -inf}, kDouble), {0}), {-inf});
  require_values(logsumexp(tensor({inf, 1.0}, kDouble), {0}), {inf});
  require_values(logsumexp(tensor({1000.0, 1000.0}, kDouble), {0}), {1000 + std::log(2.0)});
  require_values(logsumexp(zeros({0, 2}, kDouble), {0}), {-inf, -inf});
  REQUIRE(logsumexp(tensor({1, 2}, kLong), {0}).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(logsumexp(x, {3}), Catch::Contains("logsumexp: dimension 3 is out of range"));
}

namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;

// gradcheck and gradgradcheck of f at x.
void check_grad(const Tensor& x, const UnaryFn& f) {
  const autograd::GradcheckFn fn = [f](const tensor_list& in) { return f(in[0]); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x}));
}

}  // namespace

TEST_CASE("gradcheck and gradgradcheck: softmax and log_softmax along each dim", "[softmax]") {
  const Tensor x = randn({3, 4}, kDouble).requires_grad_();
  const Tensor xt = randn({4, 3, 2}, kDouble).transpose(0, 2).requires_grad_();  // (2, 3, 4)
  for (int64_t d = 0; d < 2; ++d) {
    INFO("dim " << d);
    check_grad(x, [d](const Tensor& t) { return t.softmax(d); });
    check_grad(x, [d](const Tensor& t) { return t.log_softmax(d); });
  }
  check_grad(xt, [](const Tensor& t) { return t.softmax(1); });
  check_grad(xt, [](const Tensor& t) { return t.log_softmax(-1); });
}

TEST_CASE("softmax with a dtype sends a gradient of the input's dtype", "[softmax]") {
  const Tensor f = randn({2, 3}).requires_grad_();  // float32 in, float64 out
  f.softmax(1, kDouble).select(1, 0).sum().backward();
  REQUIRE(f.grad().scalar_type() == kFloat);
  // d softmax(x)_0 / dx_j = y_0 (delta_0j - y_j).
  const std::vector<double> y = values(f.detach().to(kDouble).softmax(1));
  const std::vector<double> g = values(f.grad());
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < 3; ++j)
      REQUIRE(g[r * 3 + j] == Approx(y[r * 3] * ((j == 0) - y[r * 3 + j])).epsilon(1e-5));
}

TEST_CASE("gradcheck and gradgradcheck: logsumexp", "[softmax]") {
  const Tensor x = randn({3, 4}, kDouble).requires_grad_();
  const Tensor xt = randn({4, 3, 2}, kDouble).transpose(0, 2).requires_grad_();
  check_grad(x, [](const Tensor& t) { return logsumexp(t, {1}); });
  check_grad(xt, [](const Tensor& t) { return logsumexp(t, {0, 2}, true); });
  check_grad(xt, [](const Tensor& t) { return logsumexp(t, {-1}); });
}
