// The elementary functions (core/ops/elementwise/unary_math.cpp): values against std::
// maths in float64, edge values against PyTorch 1.13, dtypes, gradients
// (gradcheck / gradgradcheck) and the in-place forms.
#include "test_helpers.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using UnaryFn = std::function<Tensor(const Tensor&)>;
using InPlaceFn = std::function<void(const Tensor&)>;
using RefFn = std::function<double(double)>;

// Where an op's gradcheck inputs may lie: in (-0.9, 0.9) for asin and acos,
// > 0 for the logs, anywhere otherwise.
enum class Domain { kReal, kUnit, kPositive };

struct MathCase {
  std::string name;
  UnaryFn op;
  InPlaceFn op_;
  RefFn ref;
  Domain domain;
};

std::vector<MathCase> math_cases() {
  return {
      {"sin", [](const Tensor& x) { return x.sin(); }, [](const Tensor& x) { x.sin_(); },
       [](double x) { return std::sin(x); }, Domain::kReal},
      {"cos", [](const Tensor& x) { return x.cos(); }, [](const Tensor& x) { x.cos_(); },
       [](double x) { return std::cos(x); }, Domain::kReal},
      {"tan", [](const Tensor& x) { return x.tan(); }, [](const Tensor& x) { x.tan_(); },
       [](double x) { return std::tan(x); }, Domain::kUnit},
      {"asin", [](const Tensor& x) { return x.asin(); }, [](const Tensor& x) { x.asin_(); },
       [](double x) { return std::asin(x); }, Domain::kUnit},
      {"acos", [](const Tensor& x) { return x.acos(); }, [](const Tensor& x) { x.acos_(); },
       [](double x) { return std::acos(x); }, Domain::kUnit},
      {"atan", [](const Tensor& x) { return x.atan(); }, [](const Tensor& x) { x.atan_(); },
       [](double x) { return std::atan(x); }, Domain::kReal},
      {"sinh", [](const Tensor& x) { return x.sinh(); }, [](const Tensor& x) { x.sinh_(); },
       [](double x) { return std::sinh(x); }, Domain::kReal},
      {"cosh", [](const Tensor& x) { return x.cosh(); }, [](const Tensor& x) { x.cosh_(); },
       [](double x) { return std::cosh(x); }, Domain::kReal},
      {"log1p", [](const Tensor& x) { return x.log1p(); }, [](const Tensor& x) { x.log1p_(); },
       [](double x) { return std::log1p(x); }, Domain::kPositive},
      {"expm1", [](const Tensor& x) { return x.expm1(); }, [](const Tensor& x) { x.expm1_(); },
       [](double x) { return std::expm1(x); }, Domain::kReal},
      {"log2", [](const Tensor& x) { return x.log2(); }, [](const Tensor& x) { x.log2_(); },
       [](double x) { return std::log2(x); }, Domain::kPositive},
      {"log10", [](const Tensor& x) { return x.log10(); }, [](const Tensor& x) { x.log10_(); },
       [](double x) { return std::log10(x); }, Domain::kPositive},
      {"frac", [](const Tensor& x) { return x.frac(); }, [](const Tensor& x) { x.frac_(); },
       [](double x) { return x - std::trunc(x); }, Domain::kReal},
  };
}

// floor, ceil, round, trunc: gradient 0.
std::vector<MathCase> rounding_cases() {
  return {
      {"floor", [](const Tensor& x) { return x.floor(); }, [](const Tensor& x) { x.floor_(); },
       [](double x) { return std::floor(x); }, Domain::kReal},
      {"ceil", [](const Tensor& x) { return x.ceil(); }, [](const Tensor& x) { x.ceil_(); },
       [](double x) { return std::ceil(x); }, Domain::kReal},
      {"round", [](const Tensor& x) { return x.round(); }, [](const Tensor& x) { x.round_(); },
       [](double x) { return std::nearbyint(x); }, Domain::kReal},
      {"trunc", [](const Tensor& x) { return x.trunc(); }, [](const Tensor& x) { x.trunc_(); },
       [](double x) { return std::trunc(x); }, Domain::kReal},
  };
}

std::vector<MathCase> all_cases() {
  std::vector<MathCase> all = math_cases();
  for (MathCase& c : rounding_cases()) all.push_back(c);
  return all;
}

std::vector<double> sample_inputs(Domain d) {
  switch (d) {
    case Domain::kUnit: return {-0.99, -0.7, -0.3, -0.01, 0.0, 0.2, 0.5, 0.95};
    case Domain::kPositive: return {1e-6, 0.01, 0.3, 1.0, 2.5, 10.0, 123.0, 1e10};
    case Domain::kReal: break;
  }
  return {-7.3, -2.5, -1.5, -0.5, -0.2, 0.0, 0.3, 0.5, 1.5, 2.5, 4.0, 9.9};
}

// (3, 4) float64 values of the domain, 0.02 or more from any integer (the
// jumps of frac and the rounding functions): the fractional parts of
// 0.03 + 0.29 k lie in [0.03, 0.93].
Tensor smooth_inputs(Domain d) {
  Tensor jitter = rand({3, 4}, kDouble) * 0.05;                      // [0, 0.05)
  Tensor steps = arange(12, kDouble).reshape({3, 4}) * 0.29 + 0.03;  // 0.03, 0.32, ...
  if (d == Domain::kUnit) return ((steps + jitter) * 0.4 - 0.9).detach();  // (-0.9, 0.9)
  if (d == Domain::kPositive) return (steps + jitter + 0.1).detach();
  return (steps + jitter - 2.0).detach();
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

}  // namespace

TEST_CASE("elementary functions match std maths in float32 and float64", "[unary]") {
  for (const MathCase& c : all_cases()) {
    const std::vector<double> in = sample_inputs(c.domain);
    for (ScalarType dtype : {kFloat, kDouble}) {
      INFO(c.name << " in " << dtype);
      // float32: the input rounded to float32 first (frac(-7.3f) is not frac(-7.3)).
      const Tensor x = tensor(in, dtype);
      Tensor y = c.op(x);
      REQUIRE(y.scalar_type() == dtype);
      std::vector<double> want;
      for (double v : values(x)) want.push_back(c.ref(v));
      require_values(y, want, dtype == kFloat ? 2e-6 : 1e-14);
    }
  }
}

TEST_CASE("elementary functions at 0, +-0, +-inf, NaN, +-1e300 and +-1, +-0.5, +-2.5 match "
          "PyTorch, value and gradient",
          "[unary]") {
  const std::vector<double> in{0.0, -0.0, kInf, -kInf, kNan, 1e300, -1e300,
                               2.5, -2.5, 0.5, -0.5, 1.0, -1.0};
  // Computed with torch 1.13.1 (float64, CPU): y = f(x); y.sum().backward(); x.grad.
  struct Expected {
    std::string name;
    std::vector<double> value, grad;
  };
  const std::vector<Expected> expected = {
      {"sin", {0.0, -0.0, kNan, kNan, kNan, -0.8178819121159085, 0.8178819121159085, 0.5984721441039565, -0.5984721441039565, 0.479425538604203, -0.479425538604203, 0.8414709848078965, -0.8414709848078965},
       {1.0, 1.0, kNan, kNan, kNan, -0.5753861119575491, -0.5753861119575491, -0.8011436155469337, -0.8011436155469337, 0.8775825618903728, 0.8775825618903728, 0.5403023058681398, 0.5403023058681398}},
      {"cos", {1.0, 1.0, kNan, kNan, kNan, -0.5753861119575491, -0.5753861119575491, -0.8011436155469337, -0.8011436155469337, 0.8775825618903728, 0.8775825618903728, 0.5403023058681398, 0.5403023058681398},
       {-0.0, 0.0, kNan, kNan, kNan, 0.8178819121159085, -0.8178819121159085, -0.5984721441039565, 0.5984721441039565, -0.479425538604203, 0.479425538604203, -0.8414709848078965, 0.8414709848078965}},
      {"tan", {0.0, -0.0, kNan, kNan, kNan, 1.4214488238747245, -1.4214488238747245, -0.7470222972386603, 0.7470222972386603, 0.5463024898437905, -0.5463024898437905, 1.5574077246549023, -1.5574077246549023},
       {1.0, 1.0, kNan, kNan, kNan, 3.0205167588948374, 3.0205167588948374, 1.5580423125717253, 1.5580423125717253, 1.2984464104095248, 1.2984464104095248, 3.42551882081476, 3.42551882081476}},
      {"asin", {0.0, -0.0, kNan, kNan, kNan, kNan, kNan, kNan, kNan, 0.5235987755982989, -0.5235987755982989, 1.5707963267948966, -1.5707963267948966},
       {1.0, 1.0, kNan, kNan, kNan, kNan, kNan, kNan, kNan, 1.1547005383792517, 1.1547005383792517, kInf, kInf}},
      {"acos", {1.5707963267948966, 1.5707963267948966, kNan, kNan, kNan, kNan, kNan, kNan, kNan, 1.0471975511965976, 2.0943951023931957, 0.0, 3.141592653589793},
       {-1.0, -1.0, kNan, kNan, kNan, kNan, kNan, kNan, kNan, -1.1547005383792517, -1.1547005383792517, -kInf, -kInf}},
      {"atan", {0.0, -0.0, 1.5707963267948966, -1.5707963267948966, kNan, 1.5707963267948966, -1.5707963267948966, 1.1902899496825317, -1.1902899496825317, 0.4636476090008061, -0.4636476090008061, 0.7853981633974483, -0.7853981633974483},
       {1.0, 1.0, 0.0, 0.0, kNan, 0.0, 0.0, 0.13793103448275862, 0.13793103448275862, 0.8, 0.8, 0.5, 0.5}},
      {"sinh", {0.0, -0.0, kInf, -kInf, kNan, kInf, -kInf, 6.0502044810397875, -6.0502044810397875, 0.5210953054937474, -0.5210953054937474, 1.1752011936438014, -1.1752011936438014},
       {1.0, 1.0, kInf, kInf, kNan, kInf, kInf, 6.132289479663686, 6.132289479663686, 1.1276259652063807, 1.1276259652063807, 1.5430806348152437, 1.5430806348152437}},
      {"cosh", {1.0, 1.0, kInf, kInf, kNan, kInf, kInf, 6.132289479663686, 6.132289479663686, 1.1276259652063807, 1.1276259652063807, 1.5430806348152437, 1.5430806348152437},
       {0.0, -0.0, kInf, -kInf, kNan, kInf, -kInf, 6.0502044810397875, -6.0502044810397875, 0.5210953054937474, -0.5210953054937474, 1.1752011936438014, -1.1752011936438014}},
      {"log1p", {0.0, -0.0, kInf, kNan, kNan, 690.7755278982137, kNan, 1.252762968495368, kNan, 0.4054651081081644, -0.6931471805599453, 0.6931471805599453, -kInf},
       {1.0, 1.0, 0.0, -0.0, kNan, 1e-300, -1e-300, 0.2857142857142857, -0.6666666666666666, 0.6666666666666666, 2.0, 0.5, kInf}},
      {"expm1", {0.0, -0.0, kInf, -1.0, kNan, kInf, -1.0, 11.182493960703473, -0.9179150013761012, 0.6487212707001282, -0.3934693402873666, 1.7182818284590453, -0.6321205588285577},
       {1.0, 1.0, kInf, 0.0, kNan, kInf, 0.0, 12.182493960703473, 0.08208499862389884, 1.6487212707001282, 0.6065306597126334, 2.7182818284590455, 0.36787944117144233}},
      {"log2", {-kInf, -kInf, kInf, kNan, kNan, 996.5784284662087, kNan, 1.3219280948873624, kNan, -1.0, kNan, 0.0, kNan},
       {kInf, -kInf, 0.0, -0.0, kNan, 1.4426950408889632e-300, -1.4426950408889632e-300, 0.5770780163555853, -0.5770780163555853, 2.8853900817779268, -2.8853900817779268, 1.4426950408889634, -1.4426950408889634}},
      {"log10", {-kInf, -kInf, kInf, kNan, kNan, 300.0, kNan, 0.3979400086720376, kNan, -0.3010299956639812, kNan, 0.0, kNan},
       {kInf, -kInf, 0.0, -0.0, kNan, 4.342944819032518e-301, -4.342944819032518e-301, 0.17371779276130075, -0.17371779276130075, 0.8685889638065037, -0.8685889638065037, 0.43429448190325187, -0.43429448190325187}},
      {"floor", {0.0, -0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 2.0, -3.0, 0.0, -1.0, 1.0, -1.0},
       std::vector<double>(13, 0.0)},
      {"ceil", {0.0, -0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 3.0, -2.0, 1.0, -0.0, 1.0, -1.0},
       std::vector<double>(13, 0.0)},
      {"round", {0.0, -0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 2.0, -2.0, 0.0, -0.0, 1.0, -1.0},
       std::vector<double>(13, 0.0)},
      {"trunc", {0.0, -0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 2.0, -2.0, 0.0, -0.0, 1.0, -1.0},
       std::vector<double>(13, 0.0)},
      {"frac", {0.0, 0.0, kNan, kNan, kNan, 0.0, 0.0, 0.5, -0.5, 0.5, -0.5, 0.0, 0.0},
       std::vector<double>(13, 1.0)},
  };
  std::map<std::string, UnaryFn> ops;
  for (const MathCase& c : all_cases()) ops[c.name] = c.op;
  REQUIRE(ops.size() == expected.size());
  for (const Expected& e : expected) {
    INFO(e.name);
    Tensor x = tensor(in, kDouble).requires_grad_();
    Tensor y = ops.at(e.name)(x);
    require_values(y, e.value, 1e-14);
    y.sum().backward();
    require_values(x.grad(), e.grad, 1e-14);
  }
}

TEST_CASE("round rounds halves to even, as torch.round", "[unary]") {
  require_values(tensor({0.5, 1.5, 2.5, -0.5, -1.5, 3.5}).round(), {0, 2, 2, -0.0, -2, 4}, 0);
}

TEST_CASE("int64 and bool inputs to the elementary functions give float32", "[unary]") {
  const std::vector<double> in{1, 2, 3, 7};
  for (const MathCase& c : math_cases()) {
    if (c.name == "frac" || c.domain == Domain::kUnit) continue;
    INFO(c.name);
    Tensor y = c.op(tensor(in, kLong));
    REQUIRE(y.scalar_type() == kFloat);
    std::vector<double> want;
    for (double v : in) want.push_back(c.ref(v));
    require_values(y, want, 2e-6);
    REQUIRE(c.op(tensor({true, false})).scalar_type() == kFloat);
  }
  REQUIRE(tensor({0, 1}, kLong).asin().scalar_type() == kFloat);
}

TEST_CASE("floor, ceil, round and trunc return int64 unchanged; bool and int frac are errors",
          "[unary]") {
  const Tensor i = tensor({-5, 0, int64_t{3000000000}}, kLong);
  for (const MathCase& c : rounding_cases()) {
    INFO(c.name);
    Tensor y = c.op(i);
    REQUIRE(y.scalar_type() == kLong);
    REQUIRE(values(y) == values(i));
    REQUIRE(y.data_ptr() != i.data_ptr());
    Tensor z = i.clone();
    const uint32_t v = z._version();
    c.op_(z);
    REQUIRE(values(z) == values(i));
    REQUIRE(z._version() == v + 1);
    REQUIRE_THROWS_WITH(c.op(tensor({true})),
                        Catch::Contains(c.name + ": dtype bool is not supported"));
  }
  REQUIRE_THROWS_WITH(i.frac(), Catch::Contains("frac: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(i.clone().frac_(), Catch::Contains("frac_: dtype int64 is not supported"));
}

TEST_CASE("in-place elementary functions of an int64 tensor refuse the float32 result",
          "[unary]") {
  Tensor i = tensor({1, 2}, kLong);
  REQUIRE_THROWS_WITH(i.sin_(), Catch::Contains("sin_: result type float32 can't be cast") &&
                                    Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(i.exp_(), Catch::Contains("exp_: result type float32"));
  REQUIRE_THROWS_WITH(i.sigmoid_(), Catch::Contains("sigmoid_: result type float32"));
  REQUIRE(values(i) == std::vector<double>{1, 2});
}

TEST_CASE("elementary functions read non-contiguous inputs and handle empty ones", "[unary]") {
  for (const MathCase& c : all_cases()) {
    INFO(c.name);
    Tensor base = smooth_inputs(c.domain).to(kFloat);
    for (const Tensor& x : {base.t(), base.slice(1, 1, 4, 2)}) {
      std::vector<double> want;
      for (double v : values(x)) want.push_back(c.ref(v));
      require_values(c.op(x), want, 2e-6);
    }
    REQUIRE(c.op(empty({0, 3})).sizes() == IntArrayRef{0, 3});
  }
}

// ---- gradients ----

TEST_CASE("elementary functions pass gradcheck and gradgradcheck, contiguous and not",
          "[unary]") {
  for (const MathCase& c : math_cases()) {
    INFO(c.name);
    Tensor base = smooth_inputs(c.domain);
    auto fn = [&c](const tensor_list& in) { return c.op(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base)}));
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base.t())}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base)}));
  }
}

TEST_CASE("floor, ceil, round and trunc have a zero gradient, as PyTorch", "[unary]") {
  for (const MathCase& c : rounding_cases()) {
    INFO(c.name);
    Tensor x = tensor({-1.5, -0.5, 0.0, 0.5, 2.5, 3.7}, kDouble).requires_grad_();
    Tensor y = c.op(x);
    REQUIRE(y.grad_fn() != nullptr);
    (y * 3.0).sum().backward();
    REQUIRE(values(x.grad()) == std::vector<double>(6, 0.0));
    auto fn = [&c](const tensor_list& in) { return c.op(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(smooth_inputs(c.domain))}));
  }
}

// ---- in place ----

TEST_CASE("in-place elementary functions equal the out-of-place ones and bump the version once",
          "[unary]") {
  std::vector<MathCase> cases = all_cases();
  cases.push_back({"exp", [](const Tensor& x) { return x.exp(); },
                   [](const Tensor& x) { x.exp_(); }, nullptr, Domain::kReal});
  cases.push_back({"log", [](const Tensor& x) { return x.log(); },
                   [](const Tensor& x) { x.log_(); }, nullptr, Domain::kPositive});
  cases.push_back({"sqrt", [](const Tensor& x) { return x.sqrt(); },
                   [](const Tensor& x) { x.sqrt_(); }, nullptr, Domain::kPositive});
  cases.push_back({"abs", [](const Tensor& x) { return x.abs(); },
                   [](const Tensor& x) { x.abs_(); }, nullptr, Domain::kReal});
  cases.push_back({"sigmoid", [](const Tensor& x) { return x.sigmoid(); },
                   [](const Tensor& x) { x.sigmoid_(); }, nullptr, Domain::kReal});
  cases.push_back({"tanh", [](const Tensor& x) { return x.tanh(); },
                   [](const Tensor& x) { x.tanh_(); }, nullptr, Domain::kReal});
  for (const MathCase& c : cases) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      INFO(c.name << "_ in " << dtype);
      Tensor base = smooth_inputs(c.domain).to(dtype);
      const Tensor want = c.op(base.t());
      const void* data = base.data_ptr();
      const uint32_t v = base._version();
      c.op_(base.t());  // through a transposed view
      REQUIRE(base._version() == v + 1);
      REQUIRE(base.data_ptr() == data);
      require_values(base.t(), values(want), 0);
    }
  }
  Tensor i = tensor({-3, 4}, kLong);
  i.abs_();
  REQUIRE(values(i) == std::vector<double>{3, 4});
}

TEST_CASE("in-place elementary functions give correct gradients through a non-leaf", "[unary]") {
  std::vector<std::pair<MathCase, bool>> cases;  // the case, whether to gradgradcheck
  for (const MathCase& c : math_cases()) cases.push_back({c, true});
  for (const MathCase& c : rounding_cases()) cases.push_back({c, false});
  cases.push_back({{"exp", nullptr, [](const Tensor& x) { x.exp_(); }, nullptr, Domain::kReal}, true});
  cases.push_back({{"abs", nullptr, [](const Tensor& x) { x.abs_(); }, nullptr, Domain::kReal}, true});
  cases.push_back({{"sigmoid", nullptr, [](const Tensor& x) { x.sigmoid_(); }, nullptr, Domain::kReal}, true});
  cases.push_back({{"sqrt", nullptr, [](const Tensor& x) { x.sqrt_(); }, nullptr, Domain::kPositive}, true});
  cases.push_back({{"log", nullptr, [](const Tensor& x) { x.log_(); }, nullptr, Domain::kPositive}, true});
  cases.push_back({{"tanh", nullptr, [](const Tensor& x) { x.tanh_(); }, nullptr, Domain::kReal}, true});
  for (const auto& [c, twice] : cases) {
    INFO(c.name << "_");
    auto fn = [op_ = c.op_](const tensor_list& in) {
      Tensor y = in[0] * 1.0;  // a non-leaf with in[0]'s values
      op_(y);
      return y * y;  // the next op reads the in-place result
    };
    Tensor base = smooth_inputs(c.domain);
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base)}));
    if (twice) REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base)}));
  }
}

TEST_CASE("in-place elementary functions refuse a leaf that requires grad", "[unary]") {
  Tensor x = ones({3}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(x.sin_(), Catch::Contains("sin_: a leaf tensor that requires grad"));
  REQUIRE_THROWS_WITH(x.exp_(), Catch::Contains("exp_: a leaf tensor that requires grad"));
  REQUIRE_THROWS_WITH(x.floor_(), Catch::Contains("floor_: a leaf tensor that requires grad"));
  Tensor y = x * 2.0;
  y.sin_();
  REQUIRE(y.grad_fn()->name() == "SinBackward");
}
