// Comparisons (core/ops/elementwise/compare.cpp): bool results, broadcasting, the
// promoted compute dtype, Scalar forms and operators, equal and allclose.
#include "test_helpers.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace ember;
using ember_test::values;

namespace {

struct CompareCase {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<Tensor(const Tensor&, const Scalar&)> op_scalar;
  std::function<bool(double, double)> ref;
};

std::vector<CompareCase> cases() {
  return {
      {"eq", [](const Tensor& a, const Tensor& b) { return a == b; },
       [](const Tensor& a, const Scalar& b) { return a.eq(b); },
       [](double a, double b) { return a == b; }},
      {"ne", [](const Tensor& a, const Tensor& b) { return a != b; },
       [](const Tensor& a, const Scalar& b) { return a.ne(b); },
       [](double a, double b) { return a != b; }},
      {"lt", [](const Tensor& a, const Tensor& b) { return a < b; },
       [](const Tensor& a, const Scalar& b) { return a.lt(b); },
       [](double a, double b) { return a < b; }},
      {"le", [](const Tensor& a, const Tensor& b) { return a <= b; },
       [](const Tensor& a, const Scalar& b) { return a.le(b); },
       [](double a, double b) { return a <= b; }},
      {"gt", [](const Tensor& a, const Tensor& b) { return a > b; },
       [](const Tensor& a, const Scalar& b) { return a.gt(b); },
       [](double a, double b) { return a > b; }},
      {"ge", [](const Tensor& a, const Tensor& b) { return a >= b; },
       [](const Tensor& a, const Scalar& b) { return a.ge(b); },
       [](double a, double b) { return a >= b; }},
  };
}

}  // namespace

TEST_CASE("comparisons broadcast (3, 1) with (1, 4) and return bool", "[compare]") {
  Tensor a = tensor({{1.0}, {2.0}, {3.0}}, kFloat);   // (3, 1)
  Tensor b = tensor({{0.0, 2.0, 3.0, 1.0}}, kFloat);  // (1, 4)
  const std::vector<double> av = values(a), bv = values(b);
  for (const CompareCase& c : cases()) {
    INFO(c.name);
    Tensor r = c.op(a, b);
    REQUIRE(r.scalar_type() == kBool);
    REQUIRE(r.sizes() == IntArrayRef{3, 4});
    const std::vector<double> got = values(r);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) REQUIRE(got[i * 4 + j] == (c.ref(av[i], bv[j]) ? 1.0 : 0.0));
  }
}

TEST_CASE("comparisons match the named methods and free functions", "[compare]") {
  Tensor a = tensor({1, 5, 3}, kLong), b = tensor({2, 5, 1}, kLong);
  REQUIRE(values(eq(a, b)) == values(a.eq(b)));
  REQUIRE(values(ne(a, b)) == values(a.ne(b)));
  REQUIRE(values(lt(a, b)) == std::vector<double>{1, 0, 0});
  REQUIRE(values(le(a, b)) == std::vector<double>{1, 1, 0});
  REQUIRE(values(gt(a, b)) == std::vector<double>{0, 0, 1});
  REQUIRE(values(ge(a, b)) == std::vector<double>{0, 1, 1});
  REQUIRE(values(a.lt(b)) == values(a < b));
  REQUIRE(values(a.ge(3)) == values(a >= 3));
  REQUIRE(values(gt(a, 2)) == std::vector<double>{0, 1, 1});
}

TEST_CASE("Scalar comparisons compute in the promoted dtype", "[compare]") {
  Tensor i = tensor({1, 2, 3}, kLong);
  // int64 < 2.5 compares in float32: truncating 2.5 to 2 would make 2 < 2 false.
  REQUIRE(values(i < 2.5) == std::vector<double>{1, 1, 0});
  REQUIRE(values(i == 2.5) == std::vector<double>{0, 0, 0});
  REQUIRE(values(i >= 2) == std::vector<double>{0, 1, 1});
  // float32 0.1f vs the double 0.1: the Scalar is cast to float32, as in PyTorch.
  Tensor f = full({2}, 0.1, kFloat);
  REQUIRE(values(f == 0.1) == std::vector<double>{1, 1});
  REQUIRE(values(tensor({true, false}) == true) == std::vector<double>{1, 0});
  for (const CompareCase& c : cases()) {
    INFO(c.name);
    const std::vector<double> in{-1.5, 0.0, 0.25, 2.0};
    Tensor r = c.op_scalar(tensor(in, kDouble), 0.25);
    REQUIRE(r.scalar_type() == kBool);
    const std::vector<double> got = values(r);
    for (size_t k = 0; k < in.size(); ++k) REQUIRE(got[k] == (c.ref(in[k], 0.25) ? 1.0 : 0.0));
  }
}

TEST_CASE("tensor comparisons of mixed dtypes promote, a 0-dim tensor only raises the category",
          "[compare]") {
  Tensor i = tensor({1, 2, 3}, kLong);
  Tensor f = tensor({1.5, 2.0, 2.5}, kFloat);
  REQUIRE(values(i < f) == std::vector<double>{1, 0, 0});
  REQUIRE(values(i == f) == std::vector<double>{0, 1, 0});
  // float32 tensor vs float64 0-dim tensor: computed in float32, so 0.1f == 0.1.
  Tensor x = full({3}, 0.1, kFloat);
  REQUIRE(values(x == full({}, 0.1, kDouble)) == std::vector<double>{1, 1, 1});
  // Two 1-dim tensors of float32 and float64: computed in float64, so 0.1f != 0.1.
  REQUIRE(values(x == full({1}, 0.1, kDouble)) == std::vector<double>{0, 0, 0});
  Tensor b = tensor({true, false, true});
  REQUIRE(values(b == i) == std::vector<double>{1, 0, 0});
}

TEST_CASE("NaN compares unequal to everything, itself included", "[compare]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor({nan, 1.0}, kDouble);
  REQUIRE(values(x == x) == std::vector<double>{0, 1});
  REQUIRE(values(x != x) == std::vector<double>{1, 0});
  REQUIRE(values(x < 2.0) == std::vector<double>{0, 1});
  REQUIRE(values(x >= 1.0) == std::vector<double>{0, 1});
}

TEST_CASE("comparisons read non-contiguous inputs and handle empty ones", "[compare]") {
  Tensor a = arange(12, kFloat).reshape({3, 4});
  Tensor t = a.t();                    // (4, 3), strides (1, 4)
  Tensor s = a.slice(1, 0, 4, 2).t();  // (2, 3)
  REQUIRE(values(t > 5.0) == std::vector<double>{0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1});
  REQUIRE(values(s == s.contiguous()) == std::vector<double>(6, 1));
  REQUIRE(values(a.t() == a.t().contiguous()) == std::vector<double>(12, 1));
  Tensor e = empty({0, 4}, kFloat);
  Tensor r = e < a.select(0, 0);
  REQUIRE(r.sizes() == IntArrayRef{0, 4});
  REQUIRE(r.scalar_type() == kBool);
}

TEST_CASE("comparisons of non-broadcastable shapes name the op and both shapes", "[compare]") {
  Tensor a = ones({2, 3}), b = ones({4});
  REQUIRE_THROWS_WITH(a == b, Catch::Contains("eq: shapes [2, 3] and [4] cannot be broadcast"));
  REQUIRE_THROWS_WITH(a.lt(b), Catch::Contains("lt: shapes [2, 3] and [4]"));
}

TEST_CASE("comparisons record no autograd even when inputs require grad", "[compare]") {
  Tensor x = tensor({1.0, -1.0}, kDouble).requires_grad_();
  Tensor y = x * 2.0;
  for (const Tensor& r : {x > 0, y == x, y.le(1.0)}) {
    REQUIRE(r.scalar_type() == kBool);
    REQUIRE_FALSE(r.requires_grad());
    REQUIRE(r.grad_fn() == nullptr);
  }
}

TEST_CASE("equal is true only for the same shape and the same values", "[compare]") {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}});
  REQUIRE(equal(a, a.clone()));
  REQUIRE(equal(a, a.t().t()));
  REQUIRE(equal(a.t(), a.t().contiguous()));
  REQUIRE(equal(a, tensor({{1, 2}, {3, 4}}, kLong)));  // compared in the promoted dtype
  REQUIRE_FALSE(equal(a, tensor({{1.0, 2.0}, {3.0, 5.0}})));
  REQUIRE_FALSE(equal(a, a.reshape({4})));
  REQUIRE_FALSE(equal(a, ones({1, 2})));  // broadcastable is not enough
  REQUIRE(equal(empty({0, 2}), empty({0, 2})));
}

TEST_CASE("allclose checks |a - b| <= atol + rtol |b| element by element", "[compare]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor b = tensor({1.0, 100.0, 0.0}, kDouble);
  REQUIRE(allclose(b + 1e-9, b));
  REQUIRE_FALSE(allclose(b + 1e-3, b));
  REQUIRE(allclose(tensor({1.0, 101.0, 0.0}, kDouble), b, /*rtol=*/0.011, /*atol=*/0));
  REQUIRE_FALSE(allclose(tensor({1.0, 102.0, 0.0}, kDouble), b, 0.011, 0));
  REQUIRE(allclose(tensor({1.0, 100.0, 0.5}, kDouble), b, 0, 0.5));  // atol alone near 0
  REQUIRE(allclose(tensor({inf, -inf}), tensor({inf, -inf})));
  REQUIRE_FALSE(allclose(tensor({inf}), tensor({-inf})));
  REQUIRE_FALSE(allclose(tensor({inf}), tensor({1e30})));
  REQUIRE_FALSE(allclose(tensor({1.0}), tensor({inf})));  // rtol * inf would allow anything
  REQUIRE_FALSE(allclose(tensor({nan}), tensor({nan})));
  REQUIRE_FALSE(allclose(b, b.reshape({3, 1})));
  REQUIRE(allclose(tensor({1, 2}, kLong), tensor({1.0f, 2.0f})));
  // rtol scales with |b|, not |a|: asymmetric like torch.allclose.
  Tensor small = tensor({1.0}, kDouble), big = tensor({2.0}, kDouble);
  REQUIRE(allclose(small, big, 0.5, 0));
  REQUIRE_FALSE(allclose(big, small, 0.5, 0));
}
