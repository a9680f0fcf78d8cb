// Unary ops and activations (core/ops/elementwise/unary.cpp): values against std:: maths
// in float64, PyTorch's dtype rules, non-contiguous and empty inputs,
// gradients (gradcheck / gradgradcheck) and the in-place forms.
#include "test_helpers.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::values;

namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;
using RefFn = std::function<double(double)>;

struct UnaryCase {
  std::string name;
  UnaryFn op;
  RefFn ref;
  bool positive_domain;  // log, sqrt, rsqrt: inputs > 0
};

double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double ref_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Every float op with its float64 reference.
std::vector<UnaryCase> float_cases() {
  return {
      {"neg", [](const Tensor& x) { return -x; }, [](double x) { return -x; }, false},
      {"exp", [](const Tensor& x) { return x.exp(); }, [](double x) { return std::exp(x); }, false},
      {"log", [](const Tensor& x) { return x.log(); }, [](double x) { return std::log(x); }, true},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }, [](double x) { return std::sqrt(x); },
       true},
      {"rsqrt", [](const Tensor& x) { return x.rsqrt(); },
       [](double x) { return 1 / std::sqrt(x); }, true},
      {"abs", [](const Tensor& x) { return x.abs(); }, [](double x) { return std::abs(x); }, false},
      {"sign", [](const Tensor& x) { return x.sign(); },
       [](double x) { return double((x > 0) - (x < 0)); }, false},
      {"square", [](const Tensor& x) { return x.square(); }, [](double x) { return x * x; }, false},
      {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, [](double x) { return 1 / x; },
       false},
      {"relu", [](const Tensor& x) { return x.relu(); }, [](double x) { return x > 0 ? x : 0; },
       false},
      {"leaky_relu", [](const Tensor& x) { return x.leaky_relu(0.2); },
       [](double x) { return x > 0 ? x : 0.2 * x; }, false},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, ref_sigmoid, false},
      {"tanh", [](const Tensor& x) { return x.tanh(); }, [](double x) { return std::tanh(x); },
       false},
      {"gelu", [](const Tensor& x) { return x.gelu(); }, ref_gelu, false},
      {"gelu_tanh", [](const Tensor& x) { return x.gelu("tanh"); }, ref_gelu_tanh, false},
      {"clamp", [](const Tensor& x) { return x.clamp(-0.5, 0.7); },
       [](double x) { return std::min(std::max(x, -0.5), 0.7); }, false},
      {"clamp_min", [](const Tensor& x) { return x.clamp_min(0.3); },
       [](double x) { return std::max(x, 0.3); }, false},
      {"clamp_max", [](const Tensor& x) { return x.clamp_max(-0.2); },
       [](double x) { return std::min(x, -0.2); }, false},
  };
}

// Test inputs: some around zero, some large enough to saturate sigmoid/tanh.
std::vector<double> sample_inputs(bool positive) {
  if (positive) return {0.01, 0.25, 0.5, 1.0, 2.0, 3.7, 10.0, 123.0};
  return {-6.0, -2.5, -1.0, -0.4, -0.01, 0.0, 0.01, 0.3, 0.9, 1.7, 4.0, 9.0};
}

// Element i of got is ref(in[i]) within a relative tolerance.
void check_against(const Tensor& got, const std::vector<double>& in, const RefFn& ref, double tol) {
  const std::vector<double> v = values(got);
  REQUIRE(v.size() == in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("input " << in[i]);
    REQUIRE(v[i] == Approx(ref(in[i])).epsilon(tol).margin(tol));
  }
}

// Values kept away from the kinks of relu, abs, sign, clamp (0, -0.5, 0.7, 0.3, -0.2).
Tensor smooth_inputs(IntArrayRef shape, bool positive) {
  Tensor x = rand(shape, kDouble) * 0.1;  // in [0, 0.1)
  const int64_t n = x.numel();
  Tensor base = arange(n, kDouble).reshape(shape) * 0.37;  // 0, 0.37, 0.74, ...
  base = positive ? base + 0.2 : base - 1.8;  // steps of 0.37 stay 0.02 or more from the kinks
  return (x + base).detach();
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

}  // namespace

TEST_CASE("unary ops match std maths in float32 and float64", "[unary]") {
  for (const UnaryCase& c : float_cases()) {
    const std::vector<double> in = sample_inputs(c.positive_domain);
    for (ScalarType dtype : {kFloat, kDouble}) {
      INFO(c.name << " in " << dtype);
      Tensor y = c.op(tensor(in, dtype));
      REQUIRE(y.scalar_type() == dtype);
      REQUIRE(y.sizes() == IntArrayRef{static_cast<int64_t>(in.size())});
      check_against(y, in, c.ref, dtype == kFloat ? 2e-6 : 1e-13);
    }
  }
}

TEST_CASE("unary ops read transposed, sliced and expanded inputs", "[unary]") {
  for (const UnaryCase& c : float_cases()) {
    INFO(c.name);
    Tensor base = smooth_inputs({4, 6}, c.positive_domain).to(kFloat);
    for (const Tensor& x :
         {base.t(), base.slice(1, 1, 6, 2), base.select(1, 2).unsqueeze(1).expand({4, 5})}) {
      REQUIRE_FALSE(x.is_contiguous());
      Tensor y = c.op(x);
      REQUIRE(y.sizes() == x.sizes());
      check_against(y, values(x), c.ref, 2e-6);
    }
  }
}

TEST_CASE("unary ops on large inputs use the parallel loop and stay exact", "[unary]") {
  Tensor x = randn({300001}, kFloat);
  const std::vector<double> in = values(x);
  check_against(
      x.exp(), in, [](double v) { return std::exp(v); }, 2e-6);
  check_against(
      x.tanh(), in, [](double v) { return std::tanh(v); }, 2e-6);
  check_against(
      x.relu(), in, [](double v) { return v > 0 ? v : 0; }, 0);
}

TEST_CASE("unary ops on empty and 0-dim tensors", "[unary]") {
  Tensor e = empty({0, 3}, kFloat);
  for (const UnaryCase& c : float_cases()) {
    INFO(c.name);
    Tensor y = c.op(e);
    REQUIRE(y.sizes() == IntArrayRef{0, 3});
    REQUIRE(y.scalar_type() == kFloat);
  }
  Tensor s = full({}, 2.0, kDouble);
  Tensor y = s.exp();
  REQUIRE(y.dim() == 0);
  REQUIRE(y.item<double>() == Approx(std::exp(2.0)));
  Tensor z = e.clone();
  const uint32_t v = z._version();
  z.relu_();
  REQUIRE(z._version() == v + 1);
}

TEST_CASE(
    "integer and bool inputs to exp, log, sqrt, rsqrt, sigmoid, tanh, reciprocal give float32",
    "[unary]") {
  const std::vector<double> in{1, 2, 3, 7};
  const std::vector<std::pair<UnaryFn, RefFn>> ops{
      {[](const Tensor& x) { return x.exp(); }, [](double x) { return std::exp(x); }},
      {[](const Tensor& x) { return x.log(); }, [](double x) { return std::log(x); }},
      {[](const Tensor& x) { return x.sqrt(); }, [](double x) { return std::sqrt(x); }},
      {[](const Tensor& x) { return x.rsqrt(); }, [](double x) { return 1 / std::sqrt(x); }},
      {[](const Tensor& x) { return x.sigmoid(); }, ref_sigmoid},
      {[](const Tensor& x) { return x.tanh(); }, [](double x) { return std::tanh(x); }},
      {[](const Tensor& x) { return x.reciprocal(); }, [](double x) { return 1 / x; }},
  };
  for (const auto& [op, ref] : ops) {
    Tensor y = op(tensor(in, kLong));
    REQUIRE(y.scalar_type() == kFloat);
    check_against(y, in, ref, 2e-6);
    Tensor b = op(tensor({true, true}));
    REQUIRE(b.scalar_type() == kFloat);
    check_against(b, {1, 1}, ref, 2e-6);
  }
}

TEST_CASE("neg, abs, sign, square, relu and clamp keep int64 and compute exactly", "[unary]") {
  Tensor x = tensor({-5, -1, 0, 2, int64_t{3000000000}}, kLong);
  auto check = [](const Tensor& y, std::vector<double> want) {
    REQUIRE(y.scalar_type() == kLong);
    REQUIRE(values(y) == want);
  };
  check(-x, {5, 1, 0, -2, -3e9});
  check(x.abs(), {5, 1, 0, 2, 3e9});
  check(x.sign(), {-1, -1, 0, 1, 1});
  check(tensor({-3, 4}, kLong).square(), {9, 16});
  check(x.relu(), {0, 0, 0, 2, 3e9});
  check(x.clamp(-2, 2), {-2, -1, 0, 2, 2});
  check(x.clamp_min(0), {0, 0, 0, 2, 3e9});
  check(x.clamp_max(1), {-5, -1, 0, 1, 1});
  Tensor y = x.clone();
  y.neg_();
  check(y, {5, 1, 0, -2, -3e9});
  y.relu_();
  check(y, {5, 1, 0, 0, 0});
  y.clamp_(1, 4);
  check(y, {4, 1, 1, 1, 1});
}

TEST_CASE("clamp with a float bound promotes an int64 tensor to float32, as torch.clamp",
          "[unary]") {
  Tensor y = tensor({1, 2, 3}, kLong).clamp(1.5);
  REQUIRE(y.scalar_type() == kFloat);
  REQUIRE(values(y) == std::vector<double>{1.5, 2, 3});
  Tensor x = tensor({1, 2, 3}, kLong);
  REQUIRE_THROWS_WITH(x.clamp_(1.5), Catch::Contains("clamp_: result type float32 can't be cast") &&
                                         Catch::Contains("int64"));
}

TEST_CASE("clamp with min > max sets every element to max, as torch.clamp", "[unary]") {
  REQUIRE(values(tensor({-1.0, 0.5, 3.0}).clamp(2, 1)) == std::vector<double>{1, 1, 1});
}

TEST_CASE("relu, clamp, sign and predicates handle NaN and infinities like PyTorch", "[unary]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({nan, inf, -inf, 1.0, -2.0}, kDouble);
  REQUIRE(std::isnan(values(x.relu())[0]));
  REQUIRE(std::isnan(values(x.clamp(0, 1))[0]));
  REQUIRE(values(x.sign())[0] == 0);
  REQUIRE(values(x.relu())[2] == 0);
  REQUIRE(values(x.sigmoid())[1] == 1);
  REQUIRE(values(x.sigmoid())[2] == 0);
  Tensor n = isnan(x), f = isfinite(x), l = logical_not(x);
  for (const Tensor& t : {n, f, l}) REQUIRE(t.scalar_type() == kBool);
  REQUIRE(values(n) == std::vector<double>{1, 0, 0, 0, 0});
  REQUIRE(values(f) == std::vector<double>{0, 0, 0, 1, 1});
  REQUIRE(values(l) == std::vector<double>{0, 0, 0, 0, 0});
}

TEST_CASE("isnan, isfinite and logical_not accept every dtype and return bool", "[unary]") {
  Tensor i = tensor({0, 3, -1}, kLong);
  REQUIRE(values(isnan(i)) == std::vector<double>{0, 0, 0});
  REQUIRE(values(isfinite(i)) == std::vector<double>{1, 1, 1});
  REQUIRE(values(i.logical_not()) == std::vector<double>{1, 0, 0});
  Tensor b = tensor({true, false});
  Tensor nb = b.logical_not();
  REQUIRE(nb.scalar_type() == kBool);
  REQUIRE(values(nb) == std::vector<double>{0, 1});
  REQUIRE(values(tensor({0.0, 0.5}, kFloat).t().logical_not()) == std::vector<double>{1, 0});
  REQUIRE(values(isfinite(empty({0}, kFloat))).empty());
}

TEST_CASE("sign keeps bool, square of bool gives int64", "[unary]") {
  Tensor b = tensor({true, false});
  REQUIRE(b.sign().scalar_type() == kBool);
  REQUIRE(values(b.sign()) == std::vector<double>{1, 0});
  REQUIRE(b.square().scalar_type() == kLong);
  REQUIRE(values(b.square()) == std::vector<double>{1, 0});
}

TEST_CASE("ops that PyTorch rejects for bool tensors throw and name the op", "[unary]") {
  Tensor b = tensor({true, false});
  REQUIRE_THROWS_WITH(
      -b, Catch::Contains("neg: negation of a bool tensor") && Catch::Contains("logical_not"));
  REQUIRE_THROWS_WITH(b.clone().neg_(), Catch::Contains("neg_: negation of a bool tensor"));
  REQUIRE_THROWS_WITH(b.abs(), Catch::Contains("abs: dtype bool is not supported"));
  REQUIRE_THROWS_WITH(b.relu(), Catch::Contains("relu: dtype bool is not supported"));
  REQUIRE_THROWS_WITH(b.clone().relu_(), Catch::Contains("relu_: dtype bool is not supported"));
  REQUIRE_THROWS_WITH(b.clamp(0, 1), Catch::Contains("clamp: dtype bool is not supported"));
}

TEST_CASE("gelu and leaky_relu need floating inputs", "[unary]") {
  Tensor i = tensor({1, 2}, kLong);
  REQUIRE_THROWS_WITH(i.gelu(), Catch::Contains("gelu: dtype int64 is not supported") &&
                                    Catch::Contains("a floating dtype"));
  REQUIRE_THROWS_WITH(i.leaky_relu(), Catch::Contains("leaky_relu: dtype int64 is not supported"));
}

TEST_CASE("gelu with an unknown approximation names the argument", "[unary]") {
  REQUIRE_THROWS_WITH(ones({2}).gelu("erf"), Catch::Contains("gelu: argument 'approximate'") &&
                                                 Catch::Contains("\"none\" or \"tanh\"") &&
                                                 Catch::Contains("\"erf\""));
}

TEST_CASE("clamp without min and max throws", "[unary]") {
  REQUIRE_THROWS_WITH(ones({2}).clamp(), Catch::Contains("clamp: at least one of 'min' or 'max'"));
  REQUIRE_THROWS_WITH(ones({2}).clamp_(),
                      Catch::Contains("clamp_: at least one of 'min' or 'max'"));
}

TEST_CASE("leaky_relu defaults to a slope of 0.01", "[unary]") {
  REQUIRE(values(tensor({-2.0, 3.0}, kDouble).leaky_relu()) == std::vector<double>{-0.02, 3.0});
}

// ---- gradients ----

TEST_CASE("gradcheck passes for every differentiable unary op, contiguous and not", "[unary]") {
  for (const UnaryCase& c : float_cases()) {
    INFO(c.name);
    Tensor base = smooth_inputs({3, 4}, c.positive_domain);
    auto fn = [&c](const tensor_list& in) { return c.op(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base)}));
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base.t())}));                // transposed leaf
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base.slice(1, 0, 4, 2))}));  // sliced leaf
    auto on_view = [&c](const tensor_list& in) { return c.op(in[0].t().slice(0, 1, 4)); };
    REQUIRE_GRADCHECK(gradcheck(on_view, {leaf(base)}));
  }
}

TEST_CASE("gradgradcheck passes for the ops a gradient penalty differentiates twice", "[unary]") {
  for (const UnaryCase& c : float_cases()) {
    if (c.name == "sign") continue;  // its gradient is a constant 0: nothing to differentiate
    INFO(c.name);
    Tensor base = smooth_inputs({2, 3}, c.positive_domain);
    auto fn = [&c](const tensor_list& in) { return c.op(in[0]); };
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base)}));
  }
}

TEST_CASE("gelu's second derivative is differentiable too (its CDF op has a derivative)",
          "[unary]") {
  for (const std::string approximate : {"none", "tanh"}) {
    INFO(approximate);
    Tensor x = leaf(smooth_inputs({4}, false));
    auto second = [approximate](const tensor_list& in) {
      Tensor y = in[0].gelu(approximate);
      Tensor g = autograd::grad({y}, {in[0]}, {ones_like(y)}, true, true)[0];
      return autograd::grad({g}, {in[0]}, {ones_like(g)}, true, true)[0];
    };
    REQUIRE_GRADCHECK(gradcheck(second, {x}));  // compares gelu''' with differences of gelu''
  }
}

TEST_CASE("sigmoid differentiates twice through its saved output: s(1-s)(1-2s)", "[unary]") {
  // y = sigmoid(x); dy/dx = s(1-s); d2y/dx2 = s(1-s)(1-2s).
  const double xv = 0.7;
  const double s = ref_sigmoid(xv);
  Tensor x = full({1}, xv, kDouble).requires_grad_();
  Tensor y = x.sigmoid();
  Tensor g = autograd::grad({y}, {x}, {ones_like(y)}, true, true)[0];
  REQUIRE(g.item<double>() == Approx(s * (1 - s)));
  Tensor gg = autograd::grad({g}, {x}, {ones_like(g)})[0];
  REQUIRE(gg.item<double>() == Approx(s * (1 - s) * (1 - 2 * s)));
}

TEST_CASE("clamp passes the gradient where min <= x <= max, bounds included", "[unary]") {
  Tensor x = tensor({-1.0, 0.0, 0.5, 1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = x.clamp(0, 1);
  y.backward(ones_like(y));
  REQUIRE(values(x.grad()) == std::vector<double>{0, 1, 1, 1, 0});
  Tensor x2 = tensor({-1.0, 0.0, 0.5, 1.0, 2.0}, kDouble).requires_grad_();
  Tensor y2 = x2 * 1.0;
  y2.clamp_(0, 1);
  y2.backward(ones_like(y2));
  REQUIRE(values(x2.grad()) == std::vector<double>{0, 1, 1, 1, 0});
}

TEST_CASE("relu, abs and sign gradients: 0/1 mask, sign, and zero", "[unary]") {
  Tensor x = tensor({-2.0, -0.5, 0.5, 3.0}, kDouble).requires_grad_();
  Tensor y = x.relu() + x.abs() * 10.0 + x.sign() * 100.0;
  y.backward(ones_like(y));
  REQUIRE(values(x.grad()) == std::vector<double>{-10, -10, 11, 11});
}

// ---- in place ----

TEST_CASE("relu_, neg_ and clamp_ write in place and bump the version", "[unary]") {
  Tensor x = tensor({-1.5, 0.5, 2.5}, kDouble);
  const void* data = x.data_ptr();
  uint32_t v = x._version();
  REQUIRE(&x.relu_() == &x);
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{0, 0.5, 2.5});
  x.neg_();
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{0, -0.5, -2.5});
  x.clamp_(-1, 1);
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{0, -0.5, -1});
  REQUIRE(x.data_ptr() == data);
}

TEST_CASE("in-place unary ops write through non-contiguous views", "[unary]") {
  Tensor base = arange(12, kDouble).reshape({3, 4}) - 6.0;
  Tensor col = base.select(1, 1);  // -5, -1, 3
  col.relu_();
  col.neg_();
  base.t().clamp_(-3, 4);
  REQUIRE(values(base) == std::vector<double>{-3, 0, -3, -3, -2, 0, 0, 1, 2, -3, 4, 4});
}

TEST_CASE("in-place unary ops give correct gradients through a non-leaf", "[unary]") {
  Tensor base = smooth_inputs({3, 4}, false);
  const std::vector<std::pair<std::string, std::function<void(Tensor&)>>> ops{
      {"relu_", [](Tensor& t) { t.relu_(); }},
      {"neg_", [](Tensor& t) { t.neg_(); }},
      {"clamp_", [](Tensor& t) { t.clamp_(-0.5, 0.7); }},
      {"clamp_ min only", [](Tensor& t) { t.clamp_(0.3); }},
  };
  for (const auto& [name, inplace] : ops) {
    INFO(name);
    auto fn = [op = inplace](const tensor_list& in) {
      Tensor y = in[0] * 2.0;  // a non-leaf
      op(y);
      return y * y;  // the next op reads the in-place result
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base)}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base)}));
  }
}

TEST_CASE("relu_ records ReluBackward as the new grad_fn of its tensor", "[unary]") {
  Tensor x = tensor({-1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = x * 3.0;
  y.relu_();
  REQUIRE(y.grad_fn()->name() == "ReluBackward");
  y.backward(ones_like(y));
  REQUIRE(values(x.grad()) == std::vector<double>{0, 3});
}

TEST_CASE("modifying relu_'s output again in place invalidates its saved output", "[unary]") {
  Tensor x = tensor({-1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = x * 1.0;
  y.relu_();
  Tensor z = y.exp();  // saves exp's output, not y
  y.add_(1.0);
  REQUIRE_THROWS_WITH(
      z.backward(ones_like(z)),
      Catch::Contains("modified by an in-place operation") && Catch::Contains("ReluBackward"));
}

TEST_CASE("relu_ on a leaf that requires grad throws the in-place error", "[unary]") {
  Tensor x = ones({3}, kDouble).requires_grad_();
  const uint32_t v = x._version();
  REQUIRE_THROWS_WITH(x.relu_(), Catch::Contains("relu_: a leaf tensor that requires grad"));
  REQUIRE_THROWS_WITH(x.neg_(), Catch::Contains("neg_: a leaf tensor that requires grad"));
  REQUIRE_THROWS_WITH(x.clamp_(0), Catch::Contains("clamp_: a leaf tensor that requires grad"));
  REQUIRE(x._version() == v);
  NoGradGuard guard;  // as an optimizer update: allowed, nothing recorded
  x.relu_();
  REQUIRE(x.is_leaf());
  REQUIRE(x._version() == v + 1);
}

TEST_CASE("unary ops record nothing under NoGradGuard or for inputs without grad", "[unary]") {
  Tensor x = ones({2}, kDouble).requires_grad_();
  REQUIRE(x.exp().grad_fn() != nullptr);
  REQUIRE(x.exp().grad_fn()->name() == "ExpBackward");
  REQUIRE_FALSE(ones({2}).exp().requires_grad());
  NoGradGuard guard;
  REQUIRE_FALSE(x.tanh().requires_grad());
}

TEST_CASE("relu passes the gradient on at NaN; clamp with a NaN bound is NaN", "[unary]") {
  // As PyTorch: relu's backward zeroes where y <= 0, which NaN is not.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({nan, -1.0, 0.0, 2.0}, kDouble).requires_grad_();
  CHECK(values(autograd::grad({relu(x).sum()}, {x})[0]) == std::vector<double>{1, 0, 0, 1});
  const Tensor v = tensor({-2.0, 0.5, 2.0}, kDouble);
  for (const Tensor& y : {clamp(v, nan, 1.0), clamp(v, 0.0, nan), clamp(v, std::nullopt, nan),
                          clamp(v.to(kFloat), nan, 1.0)})
    CHECK(isnan(y).all().item<bool>());
  CHECK(values(clamp(v, 0.0, 1.0)) == std::vector<double>{0, 0.5, 1});
}

// -(-2^63) = 2^63 = -2^63 modulo 2^64, as PyTorch; (2^32)^2 = 2^64 = 0.
TEST_CASE("int64 neg, abs and square wrap around on overflow, as PyTorch", "[unary]") {
  const int64_t min = std::numeric_limits<int64_t>::min();
  const Tensor x = tensor({min, int64_t(1) << 32, int64_t(-5)}, kLong);
  REQUIRE(ember_test::int64_values(neg(x)) == std::vector<int64_t>{min, -(int64_t(1) << 32), 5});
  REQUIRE(ember_test::int64_values(abs(x)) == std::vector<int64_t>{min, int64_t(1) << 32, 5});
  REQUIRE(ember_test::int64_values(square(x)) == std::vector<int64_t>{0, 0, 25});
}
