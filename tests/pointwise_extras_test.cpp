// The pointwise extras: erf family and gamma functions (core/ops/elementwise/special_math.cpp),
// exp2/sinc/logit/nan_to_num and the inf/sign predicates (pointwise_extras.cpp),
// hypot ... isclose (pointwise_binary.cpp), lerp/addcmul/addcdiv
// (pointwise_ternary.cpp), and var_mean/std_mean/cummax/cummin/logcumsumexp
// (statistics.cpp). Forward values come from <cmath> or formulas stated here;
// edge values and dtypes were checked against torch 1.13.1.
#include <limits>
#include <numbers>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kEulerGamma = 0.57721566490153286061;

Tensor f64(const std::vector<double>& v) { return tensor(v, kDouble); }

// want[i] = f(v[i]).
template <typename F>
std::vector<double> map(const std::vector<double>& v, F f) {
  std::vector<double> out;
  for (double x : v) out.push_back(f(x));
  return out;
}

// A (2, 3) float64 tensor seen through a transpose: non-contiguous, requires grad.
Tensor transposed(const std::vector<double>& six) {
  return f64(six).view({3, 2}).t().detach().requires_grad_();
}

using UnaryFn = Tensor (*)(const Tensor&);
void require_unary_grads(UnaryFn f, const std::vector<double>& six, bool second = true) {
  auto fn = [f](const tensor_list& in) { return f(in[0]); };
  const Tensor x = transposed(six);
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  if (second) REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

}  // namespace

// ---- erf family and gamma functions ----

TEST_CASE("erf and erfc match std::erf and std::erfc, edges included", "[pointwise]") {
  const std::vector<double> v = {-kInf, -3.0, -0.7, -0.0, 0.0, 0.2, 1.5, 6.0, kInf, kNan};
  require_values(erf(f64(v)), map(v, [](double x) { return std::erf(x); }));
  require_values(f64(v).erfc(), map(v, [](double x) { return std::erfc(x); }));
  // float32 computes in float32: within a few ulp of the float64 value.
  require_values(erf(f64(v).to(kFloat)), map(v, [](double x) { return std::erf(x); }), 1e-6);
  require_values(erfc(f64(v).to(kFloat)), map(v, [](double x) { return std::erfc(x); }), 1e-6);
}

TEST_CASE("erf family of int64 and bool computes in float32 (torch 1.13)", "[pointwise]") {
  for (UnaryFn f : {UnaryFn(erf), UnaryFn(erfc), UnaryFn(erfinv), UnaryFn(lgamma),
                    UnaryFn(digamma), UnaryFn(exp2), UnaryFn(sinc)}) {
    REQUIRE(f(tensor({1, 2}, kLong)).scalar_type() == kFloat);
    REQUIRE(f(tensor({true, false})).scalar_type() == kFloat);
  }
  require_values(erf(tensor({1, -2}, kLong)), {std::erf(1.0), std::erf(-2.0)}, 1e-6);
  REQUIRE(logit(tensor({1, 2}, kLong)).scalar_type() == kFloat);
}

TEST_CASE("erfinv inverts std::erf, also in the tails, with +-inf at +-1", "[pointwise]") {
  // Near 0: erf(erfinv(y)) == y; in the tails erfc(erfinv(y)) == 1 - y, relative.
  for (double y : {-0.95, -0.5, -1e-9, 0.1, 0.3, 0.49, 0.6, 0.9, 0.999}) {
    const double x = erfinv(f64({y})).item<double>();
    INFO("y = " << y);
    REQUIRE(std::erf(x) == Approx(y).epsilon(1e-14).margin(1e-15));
  }
  for (double c : {1e-3, 1e-7, 1e-12, 1e-15, 0x1p-52}) {
    const double y = 1.0 - c, one_minus_y = 1.0 - y;  // exact (Sterbenz), unlike c
    const double x = erfinv(f64({y})).item<double>();
    INFO("1 - y = " << one_minus_y);
    REQUIRE(std::erfc(x) == Approx(one_minus_y).epsilon(1e-12));
  }
  // erfinv(1/2) = 0.4769362762044699 (tabulated); edges as torch.erfinv.
  require_values(erfinv(f64({0.5, 1.0, -1.0, 1.5, -2.0, kNan, 0.0})),
                 {0.4769362762044699, kInf, -kInf, kNan, kNan, kNan, 0.0}, 1e-15);
  REQUIRE(std::signbit(erfinv(f64({-0.0})).item<double>()));
  const Tensor f = erfinv(tensor({-0.9f, 0.25f, 0.999f}));
  for (int i = 0; i < 3; ++i) {
    const double y = values(tensor({-0.9f, 0.25f, 0.999f}))[i];
    REQUIRE(std::erf(values(f)[i]) == Approx(y).epsilon(1e-6));
  }
}

TEST_CASE("lgamma matches std::lgamma: inf at 0 and the negative integers", "[pointwise]") {
  const std::vector<double> v = {-kInf, -3.0, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 7.3, 150.0, kInf, kNan};
  require_values(lgamma(f64(v)), map(v, [](double x) { return std::lgamma(x); }));
  require_values(lgamma(f64({0.0, -2.0, 1.0, 2.0})), {kInf, kInf, 0.0, 0.0});  // Gamma(1) = Gamma(2) = 1
  require_values(lgamma(f64(v).to(kFloat)), map(v, [](double x) { return std::lgamma(x); }), 1e-5);
}

TEST_CASE("digamma: known values, recurrence, reflection and poles", "[pointwise]") {
  // psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2, psi(n + 1) = -gamma + H_n.
  require_values(digamma(f64({1.0, 0.5, 4.0})),
                 {-kEulerGamma, -kEulerGamma - 2 * std::numbers::ln2, -kEulerGamma + 1 + 0.5 + 1.0 / 3});
  // psi(x + 1) - psi(x) = 1 / x, and psi(1 - x) - psi(x) = pi cot(pi x).
  const std::vector<double> xs = {-3.7, -1.2, -0.4, 0.03, 0.8, 3.3, 9.9, 12.5, 40.3};
  const std::vector<double> p = values(digamma(f64(xs)));
  const std::vector<double> p1 = values(digamma(f64(map(xs, [](double x) { return x + 1; }))));
  const std::vector<double> q = values(digamma(f64(map(xs, [](double x) { return 1 - x; }))));
  for (size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs[i]);
    REQUIRE(p1[i] - p[i] == Approx(1 / xs[i]).epsilon(1e-12).margin(1e-12));
    REQUIRE(q[i] - p[i] ==
            Approx(std::numbers::pi / std::tan(std::numbers::pi * xs[i])).epsilon(1e-11).margin(1e-11));
  }
  // Poles as torch.digamma: -inf at +0, +inf at -0, NaN at negative integers and -inf.
  require_values(digamma(f64({0.0, -0.0, -1.0, -2.0, -kInf, kInf, kNan})),
                 {-kInf, kInf, kNan, kNan, kNan, kInf, kNan});
  require_values(digamma(tensor({1.0f, 0.5f})),
                 {-kEulerGamma, -kEulerGamma - 2 * std::numbers::ln2}, 1e-5);
}

TEST_CASE("polygamma(1, x) is trigamma; other orders are an Error", "[pointwise]") {
  // psi1(1) = pi^2/6, psi1(1/2) = pi^2/2, psi1(x) - psi1(x + 1) = 1/x^2.
  const double pi2 = std::numbers::pi * std::numbers::pi;
  require_values(polygamma(1, f64({1.0, 0.5})), {pi2 / 6, pi2 / 2});
  for (double x : {-2.3, 0.4, 3.1, 11.0}) {
    const double a = polygamma(1, f64({x})).item<double>(), b = polygamma(1, f64({x + 1})).item<double>();
    REQUIRE(a - b == Approx(1 / (x * x)).epsilon(1e-11));
  }
  require_values(polygamma(0, f64({1.0})), {-kEulerGamma});
  REQUIRE_THROWS_WITH(polygamma(2, f64({1.0})), Catch::Contains("polygamma") && Catch::Contains("n = 2"));
}

TEST_CASE("erf, erfc, erfinv, lgamma pass gradcheck and gradgradcheck", "[pointwise]") {
  require_unary_grads(erf, {-1.3, -0.2, 0.1, 0.5, 1.1, 2.0});
  require_unary_grads(erfc, {-1.3, -0.2, 0.1, 0.5, 1.1, 2.0});
  require_unary_grads(erfinv, {-0.8, -0.3, 0.05, 0.4, 0.6, 0.85});
  require_unary_grads(lgamma, {-2.5, -0.4, 0.3, 1.7, 3.2, 8.0});
}

TEST_CASE("digamma passes gradcheck; its second derivative is a clear Error", "[pointwise]") {
  require_unary_grads(digamma, {-2.5, -0.4, 0.3, 1.7, 3.2, 8.0}, /*second=*/false);
  auto fn = [](const tensor_list& in) { return digamma(in[0]); };
  REQUIRE_THROWS_WITH(gradgradcheck(fn, {transposed({0.3, 0.9, 1.5, 2.2, 3.0, 4.1})}),
                      Catch::Contains("polygamma(2, x)"));
}

TEST_CASE("erf_ ... digamma_ write in place, bump the version, refuse int64", "[pointwise]") {
  const std::vector<double> v = {0.25, 0.5, 1.5};
  Tensor x = f64(v);
  const auto version = x._version();
  x.erf_();
  REQUIRE(x._version() == version + 1);
  require_values(x, map(v, [](double t) { return std::erf(t); }));
  require_values(f64(v).erfc_(), map(v, [](double t) { return std::erfc(t); }));
  require_values(f64(v).lgamma_(), map(v, [](double t) { return std::lgamma(t); }));
  require_values(f64({1.0}).digamma_(), {-kEulerGamma});
  require_values(f64({0.5}).erfinv_(), {0.4769362762044699});
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).erf_(), Catch::Contains("erf_") && Catch::Contains("int64"));
}

TEST_CASE("in-place erf_ on a non-leaf differentiates like erf", "[pointwise]") {
  auto fn = [](const tensor_list& in) { return (in[0] * 1.0).erf_(); };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({-1.0, -0.3, 0.2, 0.6, 1.2, 1.9})}));
}

// ---- exp2, sinc, logit, nan_to_num, predicates ----

TEST_CASE("exp2, sinc and logit match their formulas", "[pointwise]") {
  const std::vector<double> v = {-kInf, -3.5, -1.0, 0.0, 0.25, 2.0, 10.0, kInf, kNan};
  require_values(exp2(f64(v)), map(v, [](double x) { return std::exp2(x); }));
  // sinc(x) = sin(pi x) / (pi x), 1 at 0, NaN at +-inf.
  require_values(sinc(f64(v)), map(v, [](double x) {
                   return x == 0 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
                 }));
  // logit(x) = log(x / (1 - x)): -inf at 0, inf at 1, NaN outside [0, 1].
  const std::vector<double> p = {-0.1, 0.0, 0.1, 0.5, 0.75, 1.0, 1.2, kNan};
  require_values(logit(f64(p)), {kNan, -kInf, std::log(0.1 / 0.9), 0.0, std::log(3.0), kInf, kNan, kNan});
  // With eps, x is clamped to [eps, 1 - eps] first.
  const double lo = std::log(0.2 / 0.8);
  require_values(logit(f64(p), 0.2), {lo, lo, lo, 0.0, std::log(3.0), -lo, -lo, kNan});
}

TEST_CASE("nan_to_num replaces NaN and +-inf; int64 and bool come back as copies",
          "[pointwise]") {
  const std::vector<double> v = {kNan, kInf, -kInf, -0.5, 3.0};
  const double big = std::numeric_limits<double>::max();
  require_values(nan_to_num(f64(v)), {0.0, big, -big, -0.5, 3.0});
  require_values(f64(v).nan_to_num(1.0, 2.0, -3.0), {1.0, 2.0, -3.0, -0.5, 3.0});
  const double fbig = std::numeric_limits<float>::max();
  require_values(nan_to_num(f64(v).to(kFloat), std::nullopt, std::nullopt, -7.0),
                 {0.0, fbig, -7.0, -0.5, 3.0});
  const Tensor i = tensor({1, -2}, kLong);
  const Tensor c = nan_to_num(i, 5.0);
  REQUIRE(c.scalar_type() == kLong);
  require_values(c, {1, -2});
  c.fill_(0);
  require_values(i, {1, -2});  // a copy, not i itself
  Tensor y = f64(v);
  y.nan_to_num_(std::nullopt, 9.0);
  require_values(y, {0.0, 9.0, -big, -0.5, 3.0});
}

TEST_CASE("isinf, isposinf, isneginf, signbit: bool results, -0.0 has its sign bit",
          "[pointwise]") {
  const Tensor x = f64({-kInf, -1.0, -0.0, 0.0, 2.0, kInf, kNan});
  REQUIRE(isinf(x).scalar_type() == kBool);
  require_values(isinf(x), {1, 0, 0, 0, 0, 1, 0});
  require_values(x.isposinf(), {0, 0, 0, 0, 0, 1, 0});
  require_values(isneginf(x), {1, 0, 0, 0, 0, 0, 0});
  require_values(signbit(x), {1, 1, 1, 0, 0, 0, 0});
  require_values(isinf(x.to(kFloat)), {1, 0, 0, 0, 0, 1, 0});
  require_values(signbit(tensor({-3, 0, 4}, kLong)), {1, 0, 0});
  require_values(isinf(tensor({-3, 0, 4}, kLong)), {0, 0, 0});
  require_values(signbit(tensor({true, false})), {0, 0});
}

TEST_CASE("exp2, sinc, logit, nan_to_num pass gradcheck (and gradgradcheck)", "[pointwise]") {
  require_unary_grads(exp2, {-1.5, -0.2, 0.0, 0.7, 1.3, 2.1});
  require_unary_grads(sinc, {-1.7, -0.6, 0.3, 0.5, 1.25, 2.4});
  // sinc at 0: the derivative is 0 (an even function).
  auto sinc_fn = [](const tensor_list& in) { return sinc(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(sinc_fn, {f64({0.0, 0.4}).requires_grad_()}));
  auto logit_fn = [](const tensor_list& in) { return logit(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(logit_fn, {transposed({0.05, 0.2, 0.4, 0.55, 0.8, 0.97})}));
  REQUIRE_GRADCHECK(gradgradcheck(logit_fn, {transposed({0.05, 0.2, 0.4, 0.55, 0.8, 0.97})}));
  // With eps = 0.1: 0 where clamped (0.03, 0.95), 1/(x(1-x)) inside.
  auto logit_eps = [](const tensor_list& in) { return logit(in[0], 0.1); };
  REQUIRE_GRADCHECK(gradcheck(logit_eps, {transposed({0.03, 0.2, 0.4, 0.55, 0.8, 0.95})}));
  Tensor x = f64({0.03, 0.5, 0.95}).requires_grad_();
  logit(x, 0.1).sum().backward();
  require_values(x.grad(), {0.0, 4.0, 0.0});
  // nan_to_num: gradient 1 where x was finite, 0 where it was replaced.
  auto n2n = [](const tensor_list& in) { return nan_to_num(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(n2n, {transposed({-1.0, 0.5, 2.0, 3.0, -4.0, 0.1})}));
  Tensor y = f64({kNan, kInf, -kInf, 1.0}).requires_grad_();
  nan_to_num(y).sum().backward();
  require_values(y.grad(), {0, 0, 0, 1});
}

TEST_CASE("logit_ and sinc_ write in place and differentiate", "[pointwise]") {
  Tensor x = f64({0.03, 0.5});
  const auto version = x._version();
  x.logit_(0.1);
  REQUIRE(x._version() == version + 1);
  require_values(x, {std::log(0.1 / 0.9), 0.0});
  require_values(f64({0.0, 0.5}).sinc_(), {1.0, 2 / std::numbers::pi});
  require_values(f64({3.0}).exp2_(), {8.0});
  auto fn = [](const tensor_list& in) { return (in[0] * 1.0).logit_(0.1); };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({0.03, 0.2, 0.4, 0.55, 0.8, 0.95})}));
}

// ---- binary ----

TEST_CASE("hypot, copysign, logaddexp, logaddexp2 match <cmath> with broadcasting",
          "[pointwise]") {
  const std::vector<double> a = {3.0, -1.5, 0.7, -0.0, 2.0, -4.0};  // (2, 3)
  const std::vector<double> b = {4.0, -0.5, 0.0};                   // (3) over rows
  const Tensor ta = f64(a).view({2, 3}), tb = f64(b);
  std::vector<double> h, c, l, l2;
  for (int i = 0; i < 6; ++i) {
    const double x = a[i], y = b[i % 3];
    h.push_back(std::hypot(x, y));
    c.push_back(std::copysign(x, y));
    l.push_back(std::log(std::exp(x) + std::exp(y)));
    l2.push_back(std::log2(std::exp2(x) + std::exp2(y)));
  }
  require_values(hypot(ta, tb), h);
  require_values(ta.copysign(tb), c);
  require_values(logaddexp(ta, tb), l);
  require_values(ta.logaddexp2(tb), l2);
  require_values(copysign(f64({1.0, -2.0}), -0.0), {-1.0, -2.0});
}

TEST_CASE("logaddexp and logaddexp2 are stable far out and follow torch's inf rules",
          "[pointwise]") {
  // log(e^1000 + e^1000) = 1000 + ln 2; log(e^-1000 + e^-1000) = -1000 + ln 2.
  require_values(logaddexp(f64({1000.0, -1000.0, kInf, -kInf, kInf, -kInf, kNan}),
                           f64({1000.0, -1000.0, kInf, -kInf, -kInf, 1.0, 1.0})),
                 {1000 + std::numbers::ln2, -1000 + std::numbers::ln2, kInf, -kInf, kInf, 1.0, kNan});
  require_values(logaddexp2(f64({2000.0, kInf, -kInf, 1.0}), f64({2000.0, kInf, -kInf, 1.0})),
                 {2001.0, kInf, -kInf, 2.0});
}

TEST_CASE("xlogy: 0 where x == 0, NaN where y is NaN; Scalar forms; int64 gives float32",
          "[pointwise]") {
  // torch 1.13.1: xlogy(0, 0) = 0, xlogy(0, nan) = nan, xlogy(0, -1) = 0,
  // xlogy(1, 0) = -inf, xlogy(2, -1) = nan, xlogy(-1, inf) = -inf, xlogy(nan, 1) = nan, xlogy(0, inf) = 0.
  require_values(xlogy(f64({0, 0, 0, 1, 2, -1, kNan, 0, 3}), f64({0, kNan, -1, 0, -1, kInf, 1, kInf, 2.5})),
                 {0, kNan, 0, -kInf, kNan, -kInf, kNan, 0, 3 * std::log(2.5)});
  const Tensor i = xlogy(tensor({1, 2}, kLong), tensor({3, 3}, kLong));
  REQUIRE(i.scalar_type() == kFloat);
  require_values(i, {std::log(3.0), 2 * std::log(3.0)}, 1e-6);
  require_values(xlogy(2.0, f64({3.0})), {2 * std::log(3.0)});
  require_values(f64({3.0}).xlogy(2.0), {3 * std::log(2.0)});
  require_values(xlogy(f64({0.0, 3.0}), 0.0), {0.0, -kInf});
}

TEST_CASE("heaviside: 0 below, values at 0, 1 above; one dtype; no derivative",
          "[pointwise]") {
  // torch 1.13.1: heaviside([-1, 0, 2, nan, -0.], [0.5]) = [0, 0.5, 1, 0, 0.5].
  require_values(heaviside(f64({-1.0, 0.0, 2.0, kNan, -0.0}), f64({0.5})), {0, 0.5, 1, 0, 0.5});
  const Tensor i = tensor({-1, 0, 2}, kLong).heaviside(tensor({7}, kLong));
  REQUIRE(i.scalar_type() == kLong);
  require_values(i, {0, 7, 1});
  REQUIRE_THROWS_WITH(heaviside(tensor({1.0f}), f64({1.0})),
                      Catch::Contains("heaviside") && Catch::Contains("float32") &&
                          Catch::Contains("float64"));
  Tensor x = f64({1.0, -2.0}).requires_grad_();
  REQUIRE_THROWS_WITH(heaviside(x, f64({0.5})).sum().backward(),
                      Catch::Contains("heaviside") && Catch::Contains("not implemented"));
  Tensor y = f64({1.0, 0.0, -3.0});
  y.heaviside_(f64({0.25}));
  require_values(y, {1, 0.25, 0});
}

TEST_CASE("isclose: |a - b| <= atol + rtol |b|, infinities, equal_nan; allclose agrees",
          "[pointwise]") {
  const Tensor a = f64({kNan, kInf, 1.0, 1.0, kInf, 100.0});
  const Tensor b = f64({kNan, kInf, 1.0 + 1e-6, 2.0, -kInf, 100.0011});
  REQUIRE(isclose(a, b).scalar_type() == kBool);
  require_values(isclose(a, b), {0, 1, 1, 0, 0, 0});
  require_values(a.isclose(b, 1e-5, 1e-8, /*equal_nan=*/true), {1, 1, 1, 0, 0, 0});
  require_values(isclose(a, b, 1e-3, 0.0), {0, 1, 1, 0, 0, 1});  // 0.0011 <= 1e-3 * 100.0011
  require_values(isclose(tensor({1, 2}, kLong), tensor({1, 3}, kLong), 0.5, 0.0), {1, 1});
  REQUIRE(allclose(f64({kNan, 1.0}), f64({kNan, 1.0}), 1e-5, 1e-8, true));
  REQUIRE_FALSE(allclose(f64({kNan, 1.0}), f64({kNan, 1.0})));
  REQUIRE_THROWS_WITH(isclose(tensor({1.0f}), f64({1.0})),
                      Catch::Contains("isclose") && Catch::Contains("float32 and float64"));
  REQUIRE_THROWS_WITH(isclose(a, b, -1.0), Catch::Contains("isclose") && Catch::Contains("rtol"));
}

TEST_CASE("hypot, logaddexp(2) take floating operands only; int64 mixes promote",
          "[pointwise]") {
  REQUIRE_THROWS_WITH(hypot(tensor({1, 2}, kLong), tensor({1, 2}, kLong)),
                      Catch::Contains("hypot") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(logaddexp(tensor({1}, kLong), tensor({1}, kLong)), Catch::Contains("logaddexp"));
  REQUIRE(hypot(tensor({3}, kLong), tensor({4.0f})).scalar_type() == kFloat);
  REQUIRE(copysign(tensor({1, 2}, kLong), -1.0).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(hypot(zeros({2, 3}, kDouble), zeros({4}, kDouble)), Catch::Contains("hypot"));
}

TEST_CASE("hypot, xlogy, copysign, logaddexp, logaddexp2 pass gradcheck and gradgradcheck",
          "[pointwise]") {
  using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
  const BinaryFn fns[] = {hypot, static_cast<BinaryFn>(xlogy), static_cast<BinaryFn>(copysign),
                          logaddexp, logaddexp2};
  for (BinaryFn f : fns) {
    auto fn = [f](const tensor_list& in) { return f(in[0], in[1]); };
    const Tensor a = transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4});  // (2, 3), no zeros
    const Tensor b = f64({0.9, 1.7, 0.4}).requires_grad_();          // (3): positive for xlogy
    REQUIRE_GRADCHECK(gradcheck(fn, {a, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b}));
  }
  // xlogy's x-gradient is 0 at x == 0 (torch: xlogy(x != 0, y)); copysign's b-gradient is 0.
  Tensor x = f64({0.0, 2.0}).requires_grad_(), y = f64({3.0, 4.0}).requires_grad_();
  xlogy(x, y).sum().backward();
  require_values(x.grad(), {0.0, std::log(4.0)});
  require_values(y.grad(), {0.0, 0.5});
  Tensor s = f64({1.0, 0.0, -2.0}).requires_grad_(), t = f64({-2.0, 3.0, 1.0}).requires_grad_();
  copysign(s, t).sum().backward();
  require_values(s.grad(), {-1.0, 0.0, -1.0});
  require_values(t.grad(), {0.0, 0.0, 0.0});
}

TEST_CASE("hypot_, xlogy_, copysign_ write in place, bump the version and differentiate",
          "[pointwise]") {
  Tensor x = f64({3.0, 5.0});
  const auto version = x._version();
  x.hypot_(f64({4.0}));
  REQUIRE(x._version() == version + 1);
  require_values(x, {5.0, std::hypot(5.0, 4.0)});
  require_values(f64({2.0}).xlogy_(3.0), {2 * std::log(3.0)});
  require_values(f64({2.0, -1.0}).copysign_(f64({-1.0, 1.0})), {-2.0, 1.0});
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).copysign_(-1.0),
                      Catch::Contains("copysign_") && Catch::Contains("int64"));
  auto fn = [](const tensor_list& in) { return (in[0] * 1.0).hypot_(in[1]); };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4}),
                                   f64({0.9, 1.7, 0.4}).requires_grad_()}));
}

// ---- lerp, addcmul, addcdiv ----

TEST_CASE("lerp is a + w (b - a) with Scalar and Tensor weights, exact at the ends",
          "[pointwise]") {
  const Tensor a = f64({1.0, 2.0, -3.0}), b = f64({3.0, 4.0, 5.0});
  require_values(lerp(a, b, 0.25), {1.5, 2.5, -1.0});
  require_values(a.lerp(b, f64({0.0, 1.0, 0.75})), {1.0, 4.0, 3.0});
  require_values(lerp(a, b, 2.0), {5.0, 6.0, 13.0});
  // torch 1.13.1: lerp([0, 1], [inf, 2], [0, 1]) = [nan, 2] (0 * inf).
  require_values(lerp(f64({0.0, 1.0}), f64({kInf, 2.0}), f64({0.0, 1.0})), {kNan, 2.0});
  require_values(lerp(tensor({1.0f, 2.0f}), tensor({3.0f, 4.0f}), 0.5), {2.0, 3.0});
  REQUIRE_THROWS_WITH(lerp(tensor({1.0f}), f64({1.0}), 0.5),
                      Catch::Contains("lerp") && Catch::Contains("float64"));
  REQUIRE_THROWS_WITH(lerp(tensor({1.0f}), tensor({1.0f}), f64({0.5})),
                      Catch::Contains("lerp") && Catch::Contains("weight"));
  REQUIRE_THROWS_WITH(lerp(tensor({1}, kLong), tensor({1}, kLong), 0.5), Catch::Contains("lerp"));
}

TEST_CASE("addcmul and addcdiv: self + value t1 * t2 and self + value t1 / t2, promoted",
          "[pointwise]") {
  const Tensor s = f64({1.0, 2.0}).view({2, 1}), t1 = f64({3.0, -1.0, 0.5}), t2 = f64({2.0});
  std::vector<double> m, d;
  for (double sv : {1.0, 2.0})
    for (double x : {3.0, -1.0, 0.5}) {
      m.push_back(sv + 0.5 * x * 2.0);
      d.push_back(sv - 2.0 * x / 2.0);
    }
  require_values(addcmul(s, t1, t2, 0.5), m);
  require_values(s.addcdiv(t1, t2, -2.0), d);
  // torch 1.13.1: int64 addcmul stays int64 (value cast to int64); int64 with a float32 operand is float32.
  const Tensor i = tensor({1, 2}, kLong);
  REQUIRE(addcmul(i, i, i).scalar_type() == kLong);
  require_values(addcmul(i, i, i, 2), {3, 10});
  REQUIRE(addcmul(i, tensor({1.0f, 2.0f}), i).scalar_type() == kFloat);
  REQUIRE(addcdiv(i, tensor({1.0f, 2.0f}), tensor({2.0f, 4.0f})).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(addcdiv(f64({1.0}), i, i),
                      Catch::Contains("addcdiv") && Catch::Contains("integer division"));
  REQUIRE_THROWS_WITH(addcmul(zeros({2, 3}, kDouble), zeros({4}, kDouble), zeros({3}, kDouble)),
                      Catch::Contains("addcmul"));
}

TEST_CASE("lerp, addcmul, addcdiv pass gradcheck and gradgradcheck (broadcast, transposed)",
          "[pointwise]") {
  const Tensor a = transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4});  // (2, 3)
  const Tensor b = f64({0.9, 1.7, -0.4}).requires_grad_();          // (3)
  const Tensor w = f64({0.2, 0.8}).view({2, 1}).requires_grad_();   // (2, 1)
  auto lerp_t = [](const tensor_list& in) { return lerp(in[0], in[1], in[2]); };
  auto lerp_s = [](const tensor_list& in) { return lerp(in[0], in[1], 0.3); };
  auto mul = [](const tensor_list& in) { return addcmul(in[0], in[1], in[2], 0.7); };
  auto div = [](const tensor_list& in) { return addcdiv(in[0], in[1], in[2], -1.3); };
  for (const auto& fn : {autograd::GradcheckFn(lerp_t), autograd::GradcheckFn(mul),
                         autograd::GradcheckFn(div)}) {
    REQUIRE_GRADCHECK(gradcheck(fn, {a, b, w}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b, w}));
  }
  REQUIRE_GRADCHECK(gradcheck(lerp_s, {a, b}));
}

TEST_CASE("lerp_, addcmul_, addcdiv_ write in place as an optimizer step does", "[pointwise]") {
  // Adam's second moment: v = beta v + (1 - beta) g^2, as addcmul_.
  Tensor v = f64({1.0, 2.0});
  const auto version = v._version();
  v.mul_(0.9).addcmul_(f64({3.0, -1.0}), f64({3.0, -1.0}), 0.1);
  REQUIRE(v._version() == version + 2);
  require_values(v, {0.9 + 0.9, 1.8 + 0.1});
  Tensor p = f64({1.0, 1.0});
  p.addcdiv_(f64({1.0, -2.0}), f64({2.0, 4.0}), -0.5);
  require_values(p, {0.75, 1.25});
  Tensor e = f64({0.0, 10.0});
  e.lerp_(f64({4.0, 20.0}), 0.25);
  require_values(e, {1.0, 12.5});
  e.lerp_(f64({0.0, 0.0}), f64({1.0, 0.0}));
  require_values(e, {0.0, 12.5});
  // self int64 cannot hold addcdiv's floating result; the operand must broadcast to self.
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).addcdiv_(f64({1.0}), f64({1.0})),
                      Catch::Contains("addcdiv_"));
  REQUIRE_THROWS_WITH(f64({1.0}).addcmul_(zeros({3}, kDouble), f64({1.0})),
                      Catch::Contains("addcmul_") && Catch::Contains("[3]"));
  auto fn = [](const tensor_list& in) {
    return (in[0] * 1.0).addcmul_(in[1], in[2], 0.5).addcdiv_(in[1], in[2]).lerp_(in[1], in[2]);
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4}),
                                   f64({0.9, 1.7, -0.4}).requires_grad_(),
                                   f64({0.2, 0.8, 0.6}).requires_grad_()}));
}

// ---- statistics ----

TEST_CASE("var_mean and std_mean are (var, mean) and (std, mean)", "[pointwise]") {
  const Tensor x = f64({1.0, 2.0, 3.0, 5.0}).view({2, 2});
  // rows: means 1.5, 4; unbiased variances 0.5, 2 (torch 1.13.1 agrees).
  auto [v, m] = var_mean(x, {1});
  require_values(v, {0.5, 2.0});
  require_values(m, {1.5, 4.0});
  auto [s, m2] = std_mean(x, {1}, /*unbiased=*/false, /*keepdim=*/true);
  REQUIRE(s.sizes() == IntArrayRef{2, 1});
  require_values(s, {0.5, 1.0});
  require_values(m2, {1.5, 4.0});
  // All elements: mean 2.75, sum of squares about it 8.75 -> biased 2.1875, unbiased 8.75/3.
  auto [va, ma] = var_mean(x, false);
  require_values(va, {2.1875});
  require_values(ma, {2.75});
  auto [sa, ma2] = std_mean(x);
  require_values(sa, {std::sqrt(8.75 / 3)});
  REQUIRE_THROWS_WITH(var_mean(tensor({1, 2}, kLong)),
                      Catch::Contains("var_mean") && Catch::Contains("int64"));
  auto fn = [](const tensor_list& in) {
    auto [v, m] = var_mean(in[0], {0});
    return v + m * 2.0;
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4})}));
}

TEST_CASE("cummax and cummin: running extremes and indices, NaN sticks, ties move",
          "[pointwise]") {
  // torch 1.13.1: cummax([1, nan, 3, 3, 0, nan, 5]) = values [1, nan x6], indices [0, 1, 1, 1, 1, 5, 5].
  auto [v, i] = cummax(f64({1.0, kNan, 3.0, 3.0, 0.0, kNan, 5.0}), 0);
  require_values(v, {1, kNan, kNan, kNan, kNan, kNan, kNan});
  require_values(i, {0, 1, 1, 1, 1, 5, 5});
  REQUIRE(i.scalar_type() == kLong);
  auto [vi, ii] = tensor({1, 3, 3, 2}, kLong).cummax(0);
  require_values(vi, {1, 3, 3, 3});
  require_values(ii, {0, 1, 2, 2});
  auto [vb, ib] = cummax(tensor({true, false, true}), 0);
  require_values(vb, {1, 1, 1});
  require_values(ib, {0, 0, 2});
  // A (3, 4) grid along each dim against a loop in the test.
  const Tensor x = f64({5, 1, 4, 1, 2, 6, 3, 0, 2, 2, 9, -1}).view({3, 4});
  const std::vector<double> xv = values(x);
  for (int64_t d : {0, 1}) {
    std::vector<double> mins, at;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 4; ++c) {
        const int64_t n = d == 0 ? r : c;
        double best = 0;
        int64_t where_best = 0;
        for (int64_t k = 0; k <= n; ++k) {
          const double e = d == 0 ? xv[k * 4 + c] : xv[r * 4 + k];
          if (k == 0 || e <= best) best = e, where_best = k;
        }
        mins.push_back(best);
        at.push_back(where_best);
      }
    auto [mv, mi] = cummin(x.t().contiguous().t(), d);  // non-contiguous input
    INFO("dim " << d);
    require_values(mv, mins);
    require_values(mi, at);
  }
  REQUIRE_THROWS_WITH(cummax(zeros({2, 3}), 2), Catch::Contains("cummax") && Catch::Contains("[2, 3]"));
  auto [v0, i0] = cummin(tensor(2.5, kDouble), 0);
  require_values(v0, {2.5});
  require_values(i0, {0});
}

TEST_CASE("cummax and cummin values pass gradcheck through their indices", "[pointwise]") {
  for (bool is_max : {true, false}) {
    auto fn = [is_max](const tensor_list& in) {
      return std::get<0>(is_max ? cummax(in[0], 1) : cummin(in[0], 1));
    };
    const Tensor x = transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4});
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("logcumsumexp is log(cumsum(exp)) without overflow", "[pointwise]") {
  const Tensor x = f64({0.3, -1.2, 0.8, 2.0, -0.6, 1.4}).view({2, 3});
  const std::vector<double> xv = values(x);
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    double s = 0;
    for (int c = 0; c < 3; ++c) want.push_back(std::log(s += std::exp(xv[r * 3 + c])));
  }
  require_values(logcumsumexp(x, 1), want);
  require_values(x.logcumsumexp(-1), want);
  // e^1000 overflows; log(e^0 + e^1000) = 1000 (+ e^-1000); -inf adds nothing.
  require_values(logcumsumexp(f64({0.0, 1000.0, -kInf, 1000.0}), 0),
                 {0.0, 1000.0, 1000.0, 1000.0 + std::numbers::ln2});
  require_values(logcumsumexp(f64({-kInf, -kInf, 0.0, kInf, kNan, 1.0}), 0),
                 {-kInf, -kInf, 0.0, kInf, kNan, kNan});
  require_values(logcumsumexp(tensor({1.0f, 1.0f}), 0), {1.0, 1 + std::numbers::ln2}, 1e-6);
  REQUIRE_THROWS_WITH(logcumsumexp(tensor({1, 2}, kLong), 0),
                      Catch::Contains("logcumsumexp") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(logcumsumexp(zeros({2}), 1), Catch::Contains("logcumsumexp"));
}

TEST_CASE("logcumsumexp passes gradcheck and gradgradcheck, also for large inputs",
          "[pointwise]") {
  auto fn = [](const tensor_list& in) { return logcumsumexp(in[0], 0); };
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4})}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {transposed({0.3, -1.2, 0.8, 2.0, -0.6, 1.4})}));
  // Values near 800: exp would overflow, the gradient must not.
  REQUIRE_GRADCHECK(gradcheck(fn, {transposed({800.3, 798.8, 800.8, 802.0, 799.4, 801.4})}));
  // -inf inputs get a 0 gradient, and nothing turns NaN: with x = [-inf, 0, 1],
  // y = [-inf, 0, log(1 + e)], d sum(y) / dx = [0, 1 + 1 / (1 + e), e / (1 + e)].
  Tensor xi = f64({-kInf, 0.0, 1.0}).requires_grad_();
  logcumsumexp(xi, 0).sum().backward();
  require_values(xi.grad(), {0.0, 1 + 1 / (1 + std::exp(1.0)), std::exp(1.0) / (1 + std::exp(1.0))});
  // Gradient of the last element: softmax of x.
  Tensor x = f64({1.0, 2.0, 3.0}).requires_grad_();
  logcumsumexp(x, 0).select(0, 2).backward();
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  require_values(x.grad(), {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z});
}
