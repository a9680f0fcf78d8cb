// cumsum, cumprod (core/ops/reduction/scan.cpp) and prod (core/ops/reduction/reduce.cpp): values
// against running sums and products in the test, PyTorch's dtypes, errors
// naming op and shape, and gradients, prod's with zeros in the input.
#include "test_helpers.h"

#include <limits>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
// x[i][j] = 0.3 * (i * cols + j) - 1.7: no zeros.
Tensor sample(int64_t rows, int64_t cols) {
  return arange(rows * cols, kDouble).view({rows, cols}) * 0.3 - 1.7;
}
}  // namespace

TEST_CASE("cumsum and cumprod are running sums and products along a dim", "[scan]") {
  const Tensor x = sample(3, 4);
  const std::vector<double> v = values(x);
  for (int64_t d : {0, 1, -1}) {
    const int64_t dd = d < 0 ? d + 2 : d;
    std::vector<double> sums(12), prods(12);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        double s = 0, p = 1;
        for (int64_t k = 0; k <= (dd == 0 ? i : j); ++k) {
          const double e = dd == 0 ? v[k * 4 + j] : v[i * 4 + k];
          s += e;
          p *= e;
        }
        sums[i * 4 + j] = s;
        prods[i * 4 + j] = p;
      }
    INFO("dim " << d);
    require_values(cumsum(x, d), sums);
    require_values(x.cumprod(d), prods);
    require_values(cumsum(x.t().contiguous().t(), d), sums);  // non-contiguous input
  }
}

TEST_CASE("cumsum and cumprod of int64 and bool give int64; dtype casts first (torch 1.13)",
          "[scan]") {
  // torch 1.13.1: tensor([True, True, False]).cumsum(0) == [1, 2, 2]; tensor([3, -2, 4]).cumprod(0) == [3, -6, -24]
  const Tensor b = cumsum(tensor({true, true, false}), 0);
  REQUIRE(b.scalar_type() == kLong);
  require_values(b, {1, 2, 2});
  require_values(cumprod(tensor({3, -2, 4}, kLong), 0), {3, -6, -24});
  const Tensor f = cumsum(tensor({1.5, 2.25}), 0, kLong);
  REQUIRE(f.scalar_type() == kLong);
  require_values(f, {1, 3});
  REQUIRE(cumsum(tensor({1, 2}, kLong), 0, kDouble).scalar_type() == kDouble);
}

TEST_CASE("cumsum and cumprod keep empty and 0-d shapes, and reject dims out of range", "[scan]") {
  REQUIRE(cumsum(zeros({0, 3}), 0).sizes() == IntArrayRef{0, 3});
  REQUIRE(cumprod(zeros({2, 0}), 1).sizes() == IntArrayRef{2, 0});
  require_values(cumsum(tensor(2.5, kDouble), 0), {2.5});
  REQUIRE_THROWS_WITH(cumsum(zeros({2, 3}), 2), Catch::Contains("cumsum") && Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(cumprod(zeros({2}), -2), Catch::Contains("cumprod") && Catch::Contains("[2]"));
}

TEST_CASE("cumsum's gradient is a reversed cumsum: gradcheck and gradgradcheck", "[scan]") {
  Tensor x = sample(3, 4).t().requires_grad_();
  for (int64_t d : {0, 1}) {
    auto fn = [d](const tensor_list& in) { return cumsum(in[0], d); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("cumprod gradients pass gradcheck and gradgradcheck for inputs without zeros",
          "[scan]") {
  Tensor x = sample(3, 4).t().requires_grad_();
  for (int64_t d : {0, 1}) {
    auto fn = [d](const tensor_list& in) { return cumprod(in[0], d); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("cumprod's gradient with zeros: the product of the others up to each output",
          "[scan]") {
  // x = [2, 0, 3, 0, 5], out = [2, 0, 0, 0, 0]; sum(out).backward():
  // d/dx0 = 1 (out0 / x0; later outputs are 0 either way) -> 1; d/dx1 = sum over j >= 1 of the
  // product of the others: j=1: 2, j=2: 2*3, j=3: 0, j=4: 0 -> 8; past the first zero every
  // product contains x1 = 0 -> 0, also at the second zero (x3) -> [1, 8, 0, 0, 0].
  Tensor x = tensor({2.0, 0.0, 3.0, 0.0, 5.0}, kDouble).requires_grad_();
  cumprod(x, 0).sum().backward();
  require_values(x.grad(), {1, 8, 0, 0, 0});
  // Weighted: g = [1, 2, 3] on y = [0, 4, 2]: d/dy0 = g0 + g1*4 + g2*4*2 = 1 + 8 + 24 = 33.
  Tensor y = tensor({0.0, 4.0, 2.0}, kDouble).requires_grad_();
  cumprod(y, 0).backward(tensor({1.0, 2.0, 3.0}, kDouble));
  require_values(y.grad(), {33, 0, 0});
  // Under create_graph the backward forms every product (O(n^2) per line): same values.
  Tensor w = tensor({2.0, 0.0, 3.0, 0.0, 5.0}, kDouble).requires_grad_();
  const tensor_list gw = autograd::grad({cumprod(w, 0).sum()}, {w}, {}, std::nullopt, true);
  REQUIRE(gw[0].requires_grad());
  require_values(gw[0], {1, 8, 0, 0, 0});
  Tensor z = tensor({{2.0, 0.0, 3.0}, {0.5, -1.0, 0.0}, {0.0, 0.0, 4.0}}, kDouble).requires_grad_();
  for (int64_t d : {0, 1}) {
    auto fn = [d](const tensor_list& in) { return cumprod(in[0], d); };
    REQUIRE_GRADCHECK(gradcheck(fn, {z}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {z}));
  }
}

TEST_CASE("prod multiplies all elements or along a dim; int and bool give int64", "[scan]") {
  const Tensor x = sample(3, 4);
  const std::vector<double> v = values(x);
  double all = 1;
  std::vector<double> rows(3, 1.0), cols(4, 1.0);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      all *= v[i * 4 + j];
      rows[i] *= v[i * 4 + j];
      cols[j] *= v[i * 4 + j];
    }
  require_values(prod(x), {all});
  require_values(x.prod(1), rows);
  require_values(prod(x, 0), cols);
  REQUIRE(prod(x, 0, true).sizes() == IntArrayRef{1, 4});
  const Tensor i = prod(tensor({3, -2, 4}, kLong));
  REQUIRE(i.scalar_type() == kLong);
  require_values(i, {-24});
  REQUIRE(prod(tensor({true, false})).scalar_type() == kLong);
  REQUIRE(prod(tensor({2, 3}, kLong), kDouble).scalar_type() == kDouble);
  require_values(prod(zeros({0})), {1});
  REQUIRE_THROWS_WITH(prod(x, 2), Catch::Contains("prod") && Catch::Contains("[3, 4]"));
}

TEST_CASE("prod's gradient with zeros: the product of the others (torch 1.13)", "[scan]") {
  // torch 1.13.1: x = [[2,0,3],[0,0,4],[1,2,3]]; x.prod(1).sum().backward() -> [[0,6,0],[0,0,0],[6,3,2]];
  // x.prod().backward() -> zeros; tensor([2,0,3]).prod().backward() -> [0, 6, 0]
  Tensor x = tensor({{2.0, 0.0, 3.0}, {0.0, 0.0, 4.0}, {1.0, 2.0, 3.0}}, kDouble).requires_grad_();
  x.prod(1).sum().backward();
  require_values(x.grad(), {0, 6, 0, 0, 0, 0, 6, 3, 2});
  Tensor y = tensor({{2.0, 0.0, 3.0}, {0.0, 0.0, 4.0}, {1.0, 2.0, 3.0}}, kDouble).requires_grad_();
  y.prod().backward();
  require_values(y.grad(), std::vector<double>(9, 0.0));
  Tensor z = tensor({2.0, 0.0, 3.0}, kDouble).requires_grad_();
  z.prod().backward();
  require_values(z.grad(), {0, 6, 0});
}

TEST_CASE("prod passes gradcheck with and without a zero, and gradgradcheck without", "[scan]") {
  Tensor x = sample(3, 4).t().requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return prod(in[0]); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return prod(in[0], 1, true); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return prod(in[0], 0); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return prod(in[0]); }, {x}));
  Tensor z = tensor({{2.0, 0.0, 3.0}, {1.5, -1.0, 4.0}}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return prod(in[0], 1); }, {z}));
}

// PyTorch's integer scans wrap modulo 2^64: 2^63 - 1 + 1 = -2^63, and
// 2^62 * 2 = 2^63 = -2^63, * 2 = 2^64 = 0.
TEST_CASE("int64 cumsum and cumprod wrap around on overflow, as PyTorch", "[scan]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  REQUIRE(ember_test::int64_values(cumsum(tensor({max, int64_t(1), int64_t(1)}, kLong), 0)) ==
          std::vector<int64_t>{max, min, min + 1});
  const Tensor doubling = tensor({int64_t(1) << 62, int64_t(2), int64_t(2)}, kLong);
  REQUIRE(ember_test::int64_values(cumprod(doubling, 0)) ==
          std::vector<int64_t>{int64_t(1) << 62, min, 0});
}
