// Binary arithmetic (core/ops/elementwise/binary.cpp): values against a float64 loop,
// broadcasting, PyTorch's type promotion, Scalar forms and operators, the
// in-place forms, error messages, and gradients (gradcheck / gradgradcheck).
#include "test_helpers.h"

#include <ember/core/shape.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::values;

namespace {

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
using RefFn = std::function<double(double, double)>;

struct BinaryCase {
  std::string name;
  BinaryFn op;
  RefFn ref;
};

std::vector<BinaryCase> cases() {
  return {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, std::plus<double>()},
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 3); },
       [](double a, double b) { return a + 3 * b; }},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }, std::minus<double>()},
      {"sub alpha", [](const Tensor& a, const Tensor& b) { return a.sub(b, 2); },
       [](double a, double b) { return a - 2 * b; }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, std::multiplies<double>()},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, std::divides<double>()},
      {"pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); },
       [](double a, double b) { return std::pow(a, b); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return a.maximum(b); },
       [](double a, double b) { return std::max(a, b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
       [](double a, double b) { return std::min(a, b); }},
  };
}

// a: (3, 1) and b: (1, 4), positive (pow's base) and without ties (maximum).
Tensor col_operand(ScalarType t) { return tensor({{1.5}, {2.25}, {3.0}}, t); }
Tensor row_operand(ScalarType t) { return tensor({{0.5, 1.75, 2.5, 4.0}}, t); }

// got is (3, 4) and element (i, j) is ref(a[i], b[j]).
void check_outer(const Tensor& got, const std::vector<double>& a, const std::vector<double>& b,
                 const RefFn& ref, double tol) {
  REQUIRE(got.sizes() ==
          IntArrayRef{static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size())});
  const std::vector<double> v = values(got);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      INFO("a " << a[i] << ", b " << b[j]);
      REQUIRE(v[i * b.size() + j] == Approx(ref(a[i], b[j])).epsilon(tol).margin(tol));
    }
}

// A float64 tensor of the given shape with values away from 0 and from each
// other (no ties for maximum/minimum, a positive base for pow).
Tensor distinct_positive(IntArrayRef shape, double offset) {
  Tensor x = arange(compute_numel(shape), kDouble).reshape(shape) * 0.29 + offset;
  return (x + rand(shape, kDouble) * 0.01).detach();
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

}  // namespace

TEST_CASE("binary ops broadcast (3, 1) with (1, 4) and match a float64 loop", "[binary]") {
  for (const BinaryCase& c : cases()) {
    for (ScalarType t : {kFloat, kDouble}) {
      INFO(c.name << " in " << t);
      Tensor a = col_operand(t), b = row_operand(t);
      Tensor y = c.op(a, b);
      REQUIRE(y.scalar_type() == t);
      check_outer(y, values(a), values(b), c.ref, t == kFloat ? 2e-6 : 1e-14);
    }
  }
}

TEST_CASE("binary ops read transposed, sliced and expanded operands", "[binary]") {
  Tensor base = distinct_positive({4, 6}, 0.5).to(kFloat);
  Tensor other = distinct_positive({6, 8}, 1.1).to(kFloat);
  const Tensor a = base.t();                                    // (6, 4), transposed
  const Tensor sliced = other.slice(1, 0, 8, 2);                // (6, 4), every other column
  const Tensor expanded = other.slice(1, 1, 2).expand({6, 4});  // (6, 4), one column repeated
  for (const BinaryCase& c : cases()) {
    INFO(c.name);
    const std::vector<double> av = values(a);
    for (const Tensor& b : {sliced, expanded}) {
      REQUIRE_FALSE(b.is_contiguous());
      const std::vector<double> bv = values(b), got = values(c.op(a, b));
      for (size_t k = 0; k < av.size(); ++k)
        REQUIRE(got[k] == Approx(c.ref(av[k], bv[k])).epsilon(2e-6));
    }
  }
}

TEST_CASE("binary ops on empty and 0-dim tensors", "[binary]") {
  for (const BinaryCase& c : cases()) {
    INFO(c.name);
    Tensor y = c.op(empty({0, 3}), ones({1, 3}));
    REQUIRE(y.sizes() == IntArrayRef{0, 3});
    Tensor s = c.op(full({}, 2.0, kDouble), full({}, 3.0, kDouble));
    REQUIRE(s.dim() == 0);
    REQUIRE(s.item<double>() == Approx(c.ref(2.0, 3.0)));
  }
}

TEST_CASE("binary ops on a large input take the parallel loop", "[binary]") {
  Tensor a = randn({1000, 301}, kFloat), b = randn({301}, kFloat);
  const std::vector<double> av = values(a), bv = values(b), got = values(a * b + a);
  for (size_t k = 0; k < av.size(); ++k) {
    const float want =
        static_cast<float>(av[k]) * static_cast<float>(bv[k % 301]) + static_cast<float>(av[k]);
    REQUIRE(got[k] == Approx(want).epsilon(1e-6));
  }
}

// Outputs of 4 MiB and more are written with streaming stores
// (kernels/cpu/loops.h): an unaligned head, whole vectors, a partial tail.
TEST_CASE("binary ops writing 4 MiB or more match exact values whether aligned or not", "[binary]") {
  constexpr int64_t n = (int64_t(1) << 21) + 37;  // 8 MiB of float, then 37 more
  const int threads_before = get_num_threads();
  for (const ScalarType dtype : {kFloat, kDouble}) {
    for (const int threads : {1, 2}) {
      set_num_threads(threads);
      const Tensor i = arange(n + 3, TensorOptions().dtype(dtype));
      // Out of place: a fresh output, inputs starting 3 elements into their storage.
      const std::vector<double> sum = values(i.narrow(0, 3, n) + 2 * i.narrow(0, 0, n));
      // In place through a view that starts one element into its storage.
      Tensor dst = zeros({n + 1}, dtype);
      dst.narrow(0, 1, n).add_(i.narrow(0, 0, n), 3);
      const std::vector<double> in_place = values(dst);
      REQUIRE(in_place[0] == 0.0);
      for (int64_t k = 0; k < n; ++k) {
        if (sum[size_t(k)] != double(3 * k + 3) || in_place[size_t(k + 1)] != double(3 * k))
          FAIL("element " << k << " of " << dtype << ", " << threads << " thread(s): "
                          << sum[size_t(k)] << " and " << in_place[size_t(k + 1)]);
      }
    }
  }
  set_num_threads(threads_before);
}

TEST_CASE("Scalar forms and operators of add, sub, mul, div, pow", "[binary]") {
  Tensor x = tensor({1.0, 2.0, 4.0}, kDouble);
  REQUIRE(values(x + 2) == std::vector<double>{3, 4, 6});
  REQUIRE(values(2 + x) == std::vector<double>{3, 4, 6});
  REQUIRE(values(x.add(2, 3)) == std::vector<double>{7, 8, 10});
  REQUIRE(values(x - 1) == std::vector<double>{0, 1, 3});
  REQUIRE(values(1 - x) == std::vector<double>{0, -1, -3});
  REQUIRE(values(rsub(x, 10, 2)) == std::vector<double>{8, 6, 2});
  REQUIRE(values(x.sub(1, 2)) == std::vector<double>{-1, 0, 2});
  REQUIRE(values(x * 3) == std::vector<double>{3, 6, 12});
  REQUIRE(values(3 * x) == std::vector<double>{3, 6, 12});
  REQUIRE(values(x / 2) == std::vector<double>{0.5, 1, 2});
  REQUIRE(values(8 / x) == std::vector<double>{8, 4, 2});
  REQUIRE(values(x.pow(2)) == std::vector<double>{1, 4, 16});
  REQUIRE(values(x.pow(0.5))[1] == Approx(std::sqrt(2.0)).epsilon(1e-15));
  REQUIRE(values(pow(2, x)) == std::vector<double>{2, 4, 16});
  REQUIRE(values(where(x > 1.5, x, -1)) == std::vector<double>{-1, 2, 4});
  REQUIRE(values(where(x > 1.5, 0, x)) == std::vector<double>{1, 0, 0});
}

TEST_CASE("where broadcasts condition and both operands", "[binary]") {
  Tensor cond = tensor({{true}, {false}});      // (2, 1)
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble);  // (3)
  Tensor b = full({}, -1.0, kDouble);           // ()
  Tensor y = where(cond, a, b);
  REQUIRE(y.sizes() == IntArrayRef{2, 3});
  REQUIRE(values(y) == std::vector<double>{1, 2, 3, -1, -1, -1});
  REQUIRE(where(cond, tensor({1, 2, 3}, kLong), 0.5).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(
      where(ones({2}), a, b),
      Catch::Contains("where: condition must be a bool tensor") && Catch::Contains("float32"));
}

TEST_CASE("integer arithmetic stays int64 and is exact", "[binary]") {
  Tensor a = tensor({7, -7, 3000000000}, kLong), b = tensor({2, 2, 3}, kLong);
  for (const Tensor& y : {a + b, a - b, a * b, maximum(a, b), add(a, b, 2)})
    REQUIRE(y.scalar_type() == kLong);
  REQUIRE(values(a * b) == std::vector<double>{14, -14, 9000000000});
  REQUIRE(values(add(a, b, 2)) == std::vector<double>{11, -3, 3000000006});
  REQUIRE(values(tensor({3, -2, 5}, kLong).pow(tensor({20, 3, 0}, kLong))) ==
          std::vector<double>{3486784401, -8, 1});
  // Negative tensor exponents: 1/2 truncates to 0, +-1 stay exact (as torch.pow with tensors).
  REQUIRE(values(tensor({2, 1, -1}, kLong).pow(tensor({-1, -2, -3}, kLong))) ==
          std::vector<double>{0, 1, -1});
  REQUIRE(values(a + 1) == std::vector<double>{8, -6, 3000000001});
}

TEST_CASE("type promotion follows PyTorch", "[binary]") {
  Tensor i = tensor({1, 2, 3}, kLong);
  Tensor f = tensor({0.5, 0.25, 2.0}, kFloat);
  Tensor d = tensor({1.0, 1.0, 1.0}, kDouble);
  Tensor b = tensor({true, false, true});
  SECTION("int64 with a float Scalar gives float32") {
    Tensor y = i + 2.5;
    REQUIRE(y.scalar_type() == kFloat);
    REQUIRE(values(y) == std::vector<double>{3.5, 4.5, 5.5});
    REQUIRE((i * 0.5).scalar_type() == kFloat);
  }
  SECTION("int64 / int64 is true division in float32") {
    Tensor y = tensor({7, -7, 1}, kLong) / tensor({2, 2, 0}, kLong);
    REQUIRE(y.scalar_type() == kFloat);
    REQUIRE(values(y)[0] == 3.5);
    REQUIRE(values(y)[1] == -3.5);
    REQUIRE(std::isinf(values(y)[2]));
    REQUIRE((i / 2).scalar_type() == kFloat);
  }
  SECTION("a 0-dim float64 tensor does not widen a float32 tensor") {
    REQUIRE((f + full({}, 1.0, kDouble)).scalar_type() == kFloat);
    REQUIRE((full({}, 1.0, kDouble) * f).scalar_type() == kFloat);
  }
  SECTION("a 0-dim tensor of a higher category sets the dtype") {
    REQUIRE((i + full({}, 1.0, kDouble)).scalar_type() == kDouble);
    REQUIRE((b + full({}, 3, kLong)).scalar_type() == kLong);
  }
  SECTION("dimensioned tensors promote to the wider dtype") {
    REQUIRE((f + d).scalar_type() == kDouble);
    REQUIRE((i * f).scalar_type() == kFloat);
    REQUIRE(values(i * f) == std::vector<double>{0.5, 0.5, 6});
    REQUIRE((b * i).scalar_type() == kLong);
  }
  SECTION("float Scalars do not widen float tensors; int Scalars keep int64") {
    REQUIRE((f * 1e-3).scalar_type() == kFloat);
    REQUIRE((d + 1).scalar_type() == kDouble);
    REQUIRE((i + 1).scalar_type() == kLong);
    REQUIRE((b + 1).scalar_type() == kLong);
  }
  SECTION("bool + bool is logical or, bool * bool logical and") {
    Tensor c = tensor({true, true, false});
    REQUIRE((b + c).scalar_type() == kBool);
    REQUIRE(values(b + c) == std::vector<double>{1, 1, 1});
    REQUIRE(values(b * c) == std::vector<double>{1, 0, 0});
  }
  SECTION("result_type reports the same dtypes") {
    REQUIRE(result_type(i, 2.5) == kFloat);
    REQUIRE(result_type(i, 2) == kLong);
    REQUIRE(result_type(f, full({}, 1.0, kDouble)) == kFloat);
    REQUIRE(result_type(full({}, 1.0, kDouble), full({}, 1, kLong)) == kDouble);
  }
}

TEST_CASE("a scalar beyond float32's range is +-inf in float32 ops, not an error, as PyTorch",
          "[binary]") {
  const Tensor x = tensor({1.0f, -2.0f});
  REQUIRE(values(x * 1e40) == std::vector<double>{INFINITY, -INFINITY});
  REQUIRE(values(x < 1e300) == std::vector<double>{1, 1});
  REQUIRE(values(x + -1e40) == std::vector<double>{-INFINITY, -INFINITY});
  REQUIRE(values(tensor({1, 2}, kLong) + 1e300) == std::vector<double>{INFINITY, INFINITY});
  REQUIRE(values(pow(tensor({2.0f}), 1e40)) == std::vector<double>{INFINITY});
}

TEST_CASE("bool scalars in subtraction, bool alpha on numbers, pow and argmax of bools are refused",
          "[binary]") {
  const Tensor x = tensor({1.0f, 2.0f});
  REQUIRE_THROWS_WITH(x - true, Catch::Contains("sub: subtraction with a bool scalar"));
  REQUIRE_THROWS_WITH(true - x, Catch::Contains("rsub: subtraction with a bool scalar"));
  REQUIRE_THROWS_WITH(x.clone().sub_(true), Catch::Contains("sub_: subtraction with a bool scalar"));
  REQUIRE_THROWS_WITH(add(x, x, true), Catch::Contains("add: a bool alpha is only supported for bool"));
  const Tensor b = tensor({true, false});
  REQUIRE_THROWS_WITH(pow(b, b), Catch::Contains("pow: not implemented for bool"));
  REQUIRE_THROWS_WITH(argmax(b), Catch::Contains("argmax: not implemented for bool"));
  REQUIRE(values(add(b, b, true)) == std::vector<double>{1, 0});  // or, for bools
}

TEST_CASE("max(a, b) and min(a, b) are maximum and minimum, as libtorch", "[binary]") {
  const Tensor a = tensor({1.0f, 5.0f}), b = tensor({3.0f, 2.0f});
  REQUIRE(values(max(a, b)) == std::vector<double>{3, 5});
  REQUIRE(values(min(a, b)) == std::vector<double>{1, 2});
}

TEST_CASE("maximum and minimum propagate NaN", "[binary]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor a = tensor({nan, 1.0, 2.0}, kDouble), b = tensor({0.0, nan, 3.0}, kDouble);
  for (const Tensor& y : {maximum(a, b), minimum(a, b), maximum(b, a)}) {
    const std::vector<double> v = values(y);
    REQUIRE(std::isnan(v[0]));
    REQUIRE(std::isnan(v[1]));
  }
  REQUIRE(values(maximum(a, b))[2] == 3);
  REQUIRE(values(minimum(a, b))[2] == 2);
}

TEST_CASE("non-broadcastable shapes name the op and both shapes", "[binary]") {
  Tensor a = ones({2, 3}), b = ones({4, 3}), c = ones({2, 4});
  REQUIRE_THROWS_WITH(a + b, Catch::Contains("add: shapes [2, 3] and [4, 3] cannot be broadcast"));
  REQUIRE_THROWS_WITH(a - c, Catch::Contains("sub: shapes [2, 3] and [2, 4]"));
  REQUIRE_THROWS_WITH(a * b, Catch::Contains("mul: shapes [2, 3] and [4, 3]"));
  REQUIRE_THROWS_WITH(a / c, Catch::Contains("div: shapes [2, 3] and [2, 4]"));
  REQUIRE_THROWS_WITH(a.pow(b), Catch::Contains("pow: shapes [2, 3] and [4, 3]"));
  REQUIRE_THROWS_WITH(maximum(a, b), Catch::Contains("maximum: shapes [2, 3] and [4, 3]"));
  REQUIRE_THROWS_WITH(where(ones({3}, kBool), a, b), Catch::Contains("where: shapes"));
}

// ---- in place ----

TEST_CASE("add_, sub_, mul_, div_ write in place, broadcast the operand and bump the version",
          "[binary]") {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble);
  const void* data = x.data_ptr();
  uint32_t v = x._version();
  Tensor row = tensor({10.0, 20.0}, kDouble);  // broadcasts over x's rows
  REQUIRE(&x.add_(row) == &x);
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{11, 22, 13, 24});
  x.sub_(row, 2);
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{-9, -18, -7, -16});
  x.mul_(tensor({{-1.0}, {2.0}}, kDouble));  // column operand (2, 1)
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{9, 18, -14, -32});
  x.div_(2);
  REQUIRE(x._version() == ++v);
  REQUIRE(values(x) == std::vector<double>{4.5, 9, -7, -16});
  x += 1;
  x -= tensor({0.5}, kDouble);
  x *= 2;
  x /= full({}, 4.0, kDouble);
  REQUIRE(x._version() == v + 4);
  REQUIRE(values(x) == std::vector<double>{2.5, 4.75, -3.25, -7.75});
  x.add_(1, 3).sub_(2, 0.5).mul_(2).div_(tensor({1.0, -1.0}, kDouble));
  REQUIRE(values(x) == std::vector<double>{9, -13.5, -2.5, 11.5});
  REQUIRE(x.data_ptr() == data);
}

TEST_CASE("in-place ops write through transposed views", "[binary]") {
  Tensor x = zeros({2, 3}, kDouble);
  x.t().add_(tensor({1.0, 2.0}, kDouble));  // x^T: (3, 2), row (2)
  REQUIRE(values(x) == std::vector<double>{1, 1, 1, 2, 2, 2});
  x.select(1, 1).mul_(10);
  REQUIRE(values(x) == std::vector<double>{1, 10, 1, 2, 20, 2});
}

TEST_CASE("in-place ops keep an int64 destination's dtype and reject float results", "[binary]") {
  Tensor x = tensor({1, 2, 3}, kLong);
  x.add_(tensor({true, false, true}));
  x.mul_(2);
  REQUIRE(x.scalar_type() == kLong);
  REQUIRE(values(x) == std::vector<double>{4, 4, 8});
  REQUIRE_THROWS_WITH(x.add_(0.5), Catch::Contains("add_: result type float32 can't be cast to the "
                                                   "destination's dtype int64"));
  REQUIRE_THROWS_WITH(x.mul_(ones({3})), Catch::Contains("mul_: result type float32"));
  REQUIRE_THROWS_WITH(
      x.div_(tensor({2, 2, 2}, kLong)),
      Catch::Contains("div_: result type float32 can't be cast") && Catch::Contains("int64"));
  REQUIRE(values(x) == std::vector<double>{4, 4, 8});
  // A float32 destination takes a float64 operand (same category).
  Tensor f = ones({2});
  f.add_(tensor({0.5, 0.25}, kDouble));
  REQUIRE(f.scalar_type() == kFloat);
  REQUIRE(values(f) == std::vector<double>{1.5, 1.25});
}

TEST_CASE("an in-place operand that does not broadcast to the destination throws", "[binary]") {
  Tensor x = ones({3});
  REQUIRE_THROWS_WITH(x.add_(ones({2, 3})),
                      Catch::Contains("add_: the operand of shape [2, 3] does "
                                      "not broadcast to the destination's shape [3]"));
  REQUIRE_THROWS_WITH(x.mul_(ones({2})),
                      Catch::Contains("mul_") && Catch::Contains("[2]") && Catch::Contains("[3]"));
}

TEST_CASE("in-place ops on a leaf that requires grad throw, and are allowed under NoGradGuard",
          "[binary]") {
  Tensor w = ones({2}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(w.add_(1), Catch::Contains("add_: a leaf tensor that requires grad"));
  REQUIRE_THROWS_WITH(w.mul_(2), Catch::Contains("mul_: a leaf tensor that requires grad"));
  NoGradGuard guard;
  w.sub_(tensor({0.5, 0.25}, kDouble), 2);
  REQUIRE(values(w) == std::vector<double>{0, 0.5});
  REQUIRE(w.is_leaf());
}

// ---- gradients ----

TEST_CASE("gradcheck passes for every binary op, broadcast (3, 1) with (1, 4)", "[binary]") {
  for (const BinaryCase& c : cases()) {
    INFO(c.name);
    Tensor a = leaf(distinct_positive({3, 1}, 0.6)), b = leaf(distinct_positive({1, 4}, 0.7));
    auto fn = [&c](const tensor_list& in) { return c.op(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {a, b}));
  }
}

TEST_CASE("gradcheck passes for binary ops on transposed, sliced and expanded inputs", "[binary]") {
  for (const BinaryCase& c : cases()) {
    INFO(c.name);
    Tensor a = leaf(distinct_positive({4, 3}, 0.6).t());                 // (3, 4), transposed leaf
    Tensor b = leaf(distinct_positive({3, 8}, 0.65).slice(1, 0, 8, 2));  // (3, 4), sliced leaf
    auto fn = [&c](const tensor_list& in) { return c.op(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {a, b}));
    Tensor col = leaf(distinct_positive({3}, 0.62));
    auto expanded = [&c](const tensor_list& in) {
      return c.op(in[0], in[1].unsqueeze(1).expand({3, 4}));
    };
    REQUIRE_GRADCHECK(gradcheck(expanded, {a, col}));
  }
}

TEST_CASE("gradcheck passes for Scalar forms, rsub, pow of a Scalar base and where", "[binary]") {
  Tensor x = leaf(distinct_positive({2, 3}, 0.4));
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops{
      {"x + s", [](const Tensor& t) { return t.add(2.5, 3); }},
      {"s - x", [](const Tensor& t) { return 1.5 - t; }},
      {"rsub alpha", [](const Tensor& t) { return rsub(t, 1.5, 2); }},
      {"x * s", [](const Tensor& t) { return t * -3; }},
      {"s / x", [](const Tensor& t) { return 2 / t; }},
      {"x / s", [](const Tensor& t) { return t / 4; }},
      {"x ^ 3", [](const Tensor& t) { return t.pow(3); }},
      {"x ^ 2", [](const Tensor& t) { return t.pow(2); }},
      {"x ^ -1.5", [](const Tensor& t) { return t.pow(-1.5); }},
      {"x ^ 0", [](const Tensor& t) { return t.pow(0); }},
      {"2 ^ x", [](const Tensor& t) { return pow(2, t); }},
      {"where", [](const Tensor& t) { return where(t > 1.0, t * 2, -t); }},
  };
  for (const auto& [name, op] : ops) {
    INFO(name);
    auto fn = [f = op](const tensor_list& in) { return f(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  }
  Tensor cond = tensor({{true, false, true}, {false, false, true}});
  Tensor a = leaf(distinct_positive({2, 3}, 0.3)), b = leaf(distinct_positive({3}, 0.9));
  REQUIRE_GRADCHECK(
      gradcheck([&cond](const tensor_list& in) { return where(cond, in[0], in[1]); }, {a, b}));
}

TEST_CASE("maximum and minimum split the gradient evenly on ties", "[binary]") {
  Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor b = tensor({0.0, 2.0, 5.0}, kDouble).requires_grad_();
  Tensor y = maximum(a, b) + minimum(a, b) * 10.0;
  y.backward(ones_like(y));
  REQUIRE(values(a.grad()) == std::vector<double>{1, 5.5, 10});
  REQUIRE(values(b.grad()) == std::vector<double>{10, 5.5, 1});
}

TEST_CASE("pow's exponent gradient at base 0 is 0, not NaN", "[binary]") {
  Tensor a = tensor({0.0, 2.0}, kDouble);
  Tensor e = tensor({2.0, 3.0}, kDouble).requires_grad_();
  Tensor y = a.pow(e);
  y.backward(ones_like(y));
  REQUIRE(values(e.grad()) == std::vector<double>{0, 8 * std::log(2.0)});
}

TEST_CASE("add and sub scale the second operand's gradient by alpha", "[binary]") {
  Tensor a = ones({2}, kDouble).requires_grad_(), b = ones({2}, kDouble).requires_grad_();
  Tensor y = add(a, b, 3) + sub(a, b, 0.5);
  y.backward(ones_like(y));
  REQUIRE(values(a.grad()) == std::vector<double>{2, 2});
  REQUIRE(values(b.grad()) == std::vector<double>{2.5, 2.5});
}

TEST_CASE("gradgradcheck passes for add, sub, mul, div and pow", "[binary]") {
  for (const BinaryCase& c : cases()) {
    if (c.name == "maximum" || c.name == "minimum") continue;  // piecewise linear
    INFO(c.name);
    Tensor a = leaf(distinct_positive({3, 1}, 0.6)), b = leaf(distinct_positive({1, 2}, 0.7));
    auto fn = [&c](const tensor_list& in) { return c.op(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b}));
  }
  Tensor x = leaf(distinct_positive({2, 2}, 0.5));
  REQUIRE_GRADCHECK(
      gradgradcheck([](const tensor_list& in) { return in[0].pow(3) + in[0].pow(-0.5); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return pow(1.5, in[0]); }, {x}));
}

TEST_CASE("in-place ops give correct gradients through a non-leaf, operand broadcast", "[binary]") {
  Tensor x = leaf(distinct_positive({2, 3}, 0.5));
  Tensor w = leaf(distinct_positive({3}, 0.8));
  const std::vector<std::pair<std::string, std::function<void(Tensor&, const Tensor&)>>> ops{
      {"add_", [](Tensor& y, const Tensor& w) { y.add_(w, 2); }},
      {"sub_", [](Tensor& y, const Tensor& w) { y.sub_(w); }},
      {"mul_", [](Tensor& y, const Tensor& w) { y.mul_(w); }},
      {"div_", [](Tensor& y, const Tensor& w) { y.div_(w); }},
      {"scalar ops", [](Tensor& y, const Tensor&) { y.add_(1).mul_(3).div_(2).sub_(0.5); }},
  };
  for (const auto& [name, op] : ops) {
    INFO(name);
    auto fn = [f = op](const tensor_list& in) {
      Tensor y = in[0] * 1.5;  // a non-leaf
      f(y, in[1]);
      return y * in[0];  // uses the in-place result and x again
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, w}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w}));
  }
}

TEST_CASE("mul_ keeps the old value for the operand's gradient", "[binary]") {
  Tensor x = tensor({2.0, 3.0}, kDouble).requires_grad_();
  Tensor w = tensor({5.0, 7.0}, kDouble).requires_grad_();
  Tensor y = x * 1.0;
  y.mul_(w);
  y.mul_(w);  // y = x w^2
  y.backward(ones_like(y));
  REQUIRE(values(x.grad()) == std::vector<double>{25, 49});
  REQUIRE(values(w.grad()) == std::vector<double>{20, 42});
}

TEST_CASE("modifying a saved operand in place makes backward throw", "[binary]") {
  Tensor x = tensor({2.0, 3.0}, kDouble).requires_grad_();
  Tensor b = tensor({1.0, 1.0}, kDouble);
  Tensor y = x * b;  // saves b for x's gradient
  b.add_(1);
  REQUIRE_THROWS_WITH(
      y.backward(ones_like(y)),
      Catch::Contains("MulBackward") && Catch::Contains("modified by an in-place operation"));
}

TEST_CASE("a floating alpha with integer tensors throws instead of truncating", "[binary]") {
  Tensor i = tensor({1, 2}, kLong);
  REQUIRE_THROWS_WITH(add(i, i, 0.5), Catch::Contains("add: for int64 tensors, alpha must not be a "
                                                      "floating point number, got 0.5"));
  REQUIRE_THROWS_WITH(i.sub(i, 1.5), Catch::Contains("sub: for int64 tensors, alpha"));
  REQUIRE_THROWS_WITH(i.clone().add_(i, 0.5), Catch::Contains("add_: for int64 tensors, alpha"));
  // Integer alphas work in place too (sub_ negates alpha without making it a double).
  Tensor x = i.clone();
  x.sub_(i, 3);
  REQUIRE(values(x) == std::vector<double>{-2, -4});
  x.sub_(1);
  REQUIRE(values(x) == std::vector<double>{-3, -5});
  REQUIRE(values(add(i, 1.0, 2)) == std::vector<double>{3, 4});  // float32: alpha may be an int
}

TEST_CASE("bool subtraction and negative integer powers are refused as in PyTorch", "[binary]") {
  Tensor b = tensor({true, false});
  REQUIRE_THROWS_WITH(b - b, Catch::Contains("sub: subtraction with a bool tensor is not "
                                             "supported (bool - bool)"));
  // As PyTorch: any bool operand, whatever the result type would be.
  REQUIRE_THROWS_WITH(b - 1, Catch::Contains("(bool - int64)"));
  REQUIRE_THROWS_WITH(1 - b, Catch::Contains("(int64 - bool)"));
  Tensor f = ones({2});
  REQUIRE_THROWS_WITH(f.sub_(b.slice(0, 0, 2)), Catch::Contains("sub_: subtraction with a bool"));
  Tensor i = tensor({2, 3});
  REQUIRE_THROWS_WITH(pow(i, -1), Catch::Contains("integers to negative integer powers"));
  REQUIRE(values(pow(i, tensor({3, 0}))) == std::vector<double>{8, 1});
  REQUIRE(values(pow(i, 2)) == std::vector<double>{4, 9});
  REQUIRE_THROWS_WITH(pow(b, tensor({false, true})), Catch::Contains("pow: not implemented for bool"));
}

TEST_CASE("maximum/minimum send the gradient to both inputs where the result is NaN",
          "[binary]") {
  // As PyTorch: an input gets g unless it lost; NaN has no order, so neither lost.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = tensor({nan, 1.0, 3.0, 2.0}, kDouble).requires_grad_();
  const Tensor b = tensor({1.0, nan, 1.0, 2.0}, kDouble).requires_grad_();
  for (bool is_max : {true, false}) {
    INFO((is_max ? "maximum" : "minimum"));
    const Tensor y = is_max ? maximum(a, b) : minimum(a, b);
    const tensor_list g = autograd::grad({y.sum()}, {a, b});
    CHECK(values(g[0]) == std::vector<double>{1, 1, is_max ? 1.0 : 0.0, 0.5});
    CHECK(values(g[1]) == std::vector<double>{1, 1, is_max ? 0.0 : 1.0, 0.5});
  }
}

TEST_CASE("pow's gradients at a zero base follow PyTorch's limits", "[binary]") {
  const double inf = std::numeric_limits<double>::infinity();
  // d/da a^b at b == 0 is 0 (not 0 * 0^-1 = nan); d/db a^b at a == 0 is 0
  // for b >= 0 and a^b log a = -inf for b < 0.
  const Tensor a = tensor({0.0, 0.0, 0.0, 2.0}, kDouble).requires_grad_();
  const Tensor b = tensor({0.0, 2.0, -1.0, 3.0}, kDouble).requires_grad_();
  const tensor_list g = autograd::grad({pow(a, b).sum()}, {a, b});
  const std::vector<double> ga = values(g[0]), gb = values(g[1]);
  CHECK(ga[0] == 0);
  CHECK(ga[1] == 0);          // 2 * 0^1
  CHECK(ga[2] == -inf);       // -1 * 0^-2, as PyTorch
  CHECK(ga[3] == 12);         // 3 * 2^2
  CHECK(gb[0] == 0);
  CHECK(gb[1] == 0);
  CHECK(gb[2] == -inf);
  CHECK(gb[3] == Approx(8 * std::log(2.0)).epsilon(1e-15));
}

// ---- integer overflow wraps (issue #22) ----

// PyTorch's int64 arithmetic wraps modulo 2^64; each reference is that
// modular arithmetic, done in uint64_t.
TEST_CASE("int64 add, sub, mul and pow wrap around on overflow, as PyTorch", "[binary]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  const auto one = [](int64_t v) { return tensor({v}, kLong); };
  const auto at = [](const Tensor& t) { return ember_test::int64_values(t).at(0); };
  REQUIRE(at(add(one(max), one(1))) == min);
  REQUIRE(at(sub(one(min), one(1))) == max);
  REQUIRE(at(mul(one(int64_t(1) << 62), one(4))) == 0);  // 2^64
  REQUIRE(at(mul(one(max), one(max))) == 1);  // (2^63 - 1)^2 = 2^126 - 2^64 + 1
  // a + alpha * b with alpha * b = 4 * 2^62 = 2^64 = 0.
  REQUIRE(at(add(one(1), one(int64_t(1) << 62), 4)) == 1);
  REQUIRE(at(sub(one(1), one(int64_t(1) << 62), 4)) == 1);
  REQUIRE(at(pow(one(2), one(63))) == min);
  uint64_t three_41 = 1;
  for (int i = 0; i < 41; ++i) three_41 *= 3;
  REQUIRE(at(pow(one(3), one(41))) == static_cast<int64_t>(three_41));
}

// INT64_MIN / -1 = 2^63 wraps to INT64_MIN (and would trap on x86 if computed);
// any a modulo -1 is 0.
TEST_CASE("int64 floor_divide, fmod and remainder by -1 do not trap on INT64_MIN", "[binary]") {
  const int64_t min = std::numeric_limits<int64_t>::min();
  const Tensor a = tensor({min, int64_t(7), int64_t(-7)}, kLong);
  const Tensor minus_one = full({3}, int64_t(-1), kLong);
  REQUIRE(ember_test::int64_values(floor_divide(a, minus_one)) == std::vector<int64_t>{min, -7, 7});
  REQUIRE(ember_test::int64_values(fmod(a, minus_one)) == std::vector<int64_t>{0, 0, 0});
  REQUIRE(ember_test::int64_values(remainder(a, minus_one)) == std::vector<int64_t>{0, 0, 0});
}
