// select_scatter, slice_scatter, diagonal_scatter, masked_scatter(_) and
// fill_diagonal_ (core/ops/indexing/scatter_views.cpp): values from index arithmetic
// written here, gradients for both inputs by gradcheck and gradgradcheck.
#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
Tensor iota(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, kDouble).view(shape);
}
}  // namespace

TEST_CASE("select_scatter replaces one slice and leaves self unchanged", "[tensor_extras]") {
  const Tensor x = iota({2, 3});  // [[0,1,2],[3,4,5]]
  const Tensor out = select_scatter(x, tensor({-1.0, -2.0}, kDouble), 1, -2);
  require_values(out, {0, -1, 2, 3, -2, 5});
  require_values(x, {0, 1, 2, 3, 4, 5});
  require_values(x.t().select_scatter(full({2}, 9.0, kDouble), 0, 2), {0, 3, 1, 4, 9, 9});
  REQUIRE_THROWS_WITH(select_scatter(x, zeros({3}, kDouble), 1, 0),
                      Catch::Contains("select_scatter") && Catch::Contains("[2]") && Catch::Contains("[3]"));
  REQUIRE_THROWS_WITH(select_scatter(x, zeros({2}, kDouble), 1, 3),
                      Catch::Contains("select_scatter") && Catch::Contains("out of range"));
}

TEST_CASE("slice_scatter replaces a strided slice", "[tensor_extras]") {
  const Tensor x = zeros({6}, kDouble);
  require_values(slice_scatter(x, tensor({1.0, 2.0, 3.0}, kDouble), 0, 1, std::nullopt, 2), {0, 1, 0, 2, 0, 3});
  const Tensor m = iota({3, 4});
  const Tensor out = m.slice_scatter(full({3, 2}, -1.0, kDouble), 1, 2);
  // columns 2 and 3 of every row become -1
  require_values(out, {0, 1, -1, -1, 4, 5, -1, -1, 8, 9, -1, -1});
  require_values(slice_scatter(m, iota({1, 4}), 0, -1), {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3});
  REQUIRE_THROWS_WITH(slice_scatter(m, zeros({3, 4}, kDouble), 1, 2), Catch::Contains("slice_scatter") && Catch::Contains("[3, 2]"));
  REQUIRE_THROWS_WITH(slice_scatter(m, zeros({3, 4}, kDouble), 1, 0, 4, 0), Catch::Contains("slice_scatter") && Catch::Contains("step"));
}

TEST_CASE("diagonal_scatter replaces a diagonal, offsets and batch dims included", "[tensor_extras]") {
  const Tensor m = zeros({3, 4}, kDouble);
  require_values(diagonal_scatter(m, tensor({1.0, 2.0, 3.0}, kDouble)), {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0});
  require_values(m.diagonal_scatter(tensor({1.0, 2.0, 3.0}, kDouble), 1), {0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3});
  require_values(diagonal_scatter(m, tensor({5.0, 6.0}, kDouble), -1), {0, 0, 0, 0, 5, 0, 0, 0, 0, 6, 0, 0});
  // (2, 2, 2) with dims 1, 2: src (2 batches, 2 diagonal elements)
  require_values(diagonal_scatter(zeros({2, 2, 2}, kDouble), iota({2, 2}).add(1), 0, 1, 2), {1, 0, 0, 2, 3, 0, 0, 4});
  REQUIRE_THROWS_WITH(diagonal_scatter(m, zeros({4}, kDouble)), Catch::Contains("diagonal_scatter") && Catch::Contains("[3]"));
  REQUIRE_THROWS_WITH(diagonal_scatter(zeros({3}), zeros({1})), Catch::Contains("diagonal_scatter") && Catch::Contains("at least 2"));
}

TEST_CASE("view scatters send gradients to self outside the view and to src inside it", "[tensor_extras]") {
  const Tensor self = iota({3, 4}).t().requires_grad_();  // (4, 3), non-contiguous
  const Tensor row = tensor({0.5, -1.0, 2.0}, kDouble).requires_grad_();
  auto sel = [](const tensor_list& in) { return select_scatter(in[0], in[1], 0, 2).square(); };
  REQUIRE_GRADCHECK(gradcheck(sel, {self, row}));
  REQUIRE_GRADCHECK(gradgradcheck(sel, {self, row}));
  const Tensor cols = iota({4, 2}).add(0.25).requires_grad_();
  auto sl = [](const tensor_list& in) { return slice_scatter(in[0], in[1], 1, 0, 3, 2).square(); };
  REQUIRE_GRADCHECK(gradcheck(sl, {self, cols}));
  REQUIRE_GRADCHECK(gradgradcheck(sl, {self, cols}));
  const Tensor diag = tensor({3.0, -2.0}, kDouble).requires_grad_();
  auto dg = [](const tensor_list& in) { return diagonal_scatter(in[0], in[1], -2).square(); };
  REQUIRE_GRADCHECK(gradcheck(dg, {self, diag}));
  REQUIRE_GRADCHECK(gradgradcheck(dg, {self, diag}));
  // By hand: the view's positions get no gradient in self.
  const Tensor s = zeros({2, 2}, kDouble).requires_grad_();
  const Tensor d = ones({2}, kDouble).requires_grad_();
  (diagonal_scatter(s, d) * iota({2, 2})).sum().backward();
  require_values(s.grad(), {0, 1, 2, 0});
  require_values(d.grad(), {0, 3});
}

TEST_CASE("masked_scatter fills true positions from source in row-major order", "[tensor_extras]") {
  const Tensor x = zeros({2, 3}, kDouble);
  const Tensor mask = tensor({{true, false, true}, {false, true, true}});
  const Tensor src = iota({2, 3}).add(1);  // 1..6, only the first 4 used
  require_values(masked_scatter(x, mask, src), {1, 0, 2, 0, 3, 4});
  // A broadcast mask (one row for both rows) and a non-contiguous source.
  require_values(x.masked_scatter(tensor({false, true, true}), iota({2, 2}).t()), {0, 0, 2, 0, 1, 3});
  require_values(masked_scatter(x, zeros({2, 3}, kBool), zeros({0}, kDouble)), {0, 0, 0, 0, 0, 0});
  Tensor y = zeros({2, 3}, kDouble);
  const int64_t v = y._version();
  y.masked_scatter_(mask, src);
  require_values(y, {1, 0, 2, 0, 3, 4});
  REQUIRE(y._version() > v);
}

TEST_CASE("masked_scatter rejects short sources, non-bool masks and mixed dtypes", "[tensor_extras]") {
  const Tensor x = zeros({2, 2}, kDouble);
  REQUIRE_THROWS_WITH(masked_scatter(x, ones({2, 2}, kBool), zeros({3}, kDouble)),
                      Catch::Contains("masked_scatter") && Catch::Contains("fewer"));
  REQUIRE_THROWS_WITH(masked_scatter(x, ones({2, 2}, kLong), zeros({4}, kDouble)),
                      Catch::Contains("masked_scatter") && Catch::Contains("bool"));
  REQUIRE_THROWS_WITH(masked_scatter(x, ones({2, 2}, kBool), zeros({4}, kFloat)),
                      Catch::Contains("masked_scatter") && Catch::Contains("float32"));
  Tensor row = zeros({2}, kDouble);
  REQUIRE_THROWS_WITH(row.masked_scatter_(ones({2, 2}, kBool), zeros({4}, kDouble)),
                      Catch::Contains("masked_scatter_") && Catch::Contains("[2, 2]"));
}

TEST_CASE("masked_scatter gradients reach self and the used source elements", "[tensor_extras]") {
  const Tensor mask = tensor({{true, false, true}, {false, true, true}});
  const Tensor x = iota({3, 2}).t().requires_grad_(), src = iota({5}).add(1).requires_grad_();
  auto fn = [mask](const tensor_list& in) { return masked_scatter(in[0], mask, in[1]).square(); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, src}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, src}));
  // In place on a non-leaf: self's old values get the gradient outside the mask.
  const Tensor a = iota({2, 3}).requires_grad_(), b = ones({5}, kDouble).requires_grad_();
  Tensor c = a * 2;
  c.masked_scatter_(mask, b);
  c.sum().backward();
  require_values(a.grad(), {0, 2, 0, 2, 0, 0});
  require_values(b.grad(), {1, 1, 1, 1, 0});
}

TEST_CASE("fill_diagonal_ fills the main diagonal, wrapping tall matrices on request", "[tensor_extras]") {
  Tensor m = zeros({3, 4}, kDouble);
  m.fill_diagonal_(5);
  require_values(m, {5, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0});
  Tensor tall = zeros({7, 3}, kDouble);
  tall.fill_diagonal_(1, true);  // rows 0-2 diagonal, row 3 empty, rows 4-6 diagonal again
  std::vector<double> want(21, 0);
  for (int r : {0, 1, 2}) want[r * 3 + r] = 1;
  for (int r : {4, 5, 6}) want[r * 3 + (r - 4)] = 1;
  require_values(tall, want);
  Tensor no_wrap = zeros({7, 3}, kDouble);
  no_wrap.fill_diagonal_(1);
  REQUIRE(values(no_wrap.sum())[0] == 3);
  Tensor cube = zeros({2, 2, 2}, kLong);
  cube.fill_diagonal_(7);
  require_values(cube, {7, 0, 0, 0, 0, 0, 0, 7});
  const int64_t v = cube._version();
  cube.fill_diagonal_(1);
  REQUIRE(cube._version() > v);
  REQUIRE_THROWS_WITH(zeros({3}).fill_diagonal_(1), Catch::Contains("fill_diagonal_") && Catch::Contains("at least 2"));
  REQUIRE_THROWS_WITH(zeros({2, 2, 3}).fill_diagonal_(1), Catch::Contains("fill_diagonal_") && Catch::Contains("[2, 2, 3]"));
}

TEST_CASE("fill_diagonal_ clears the gradient of the filled positions", "[tensor_extras]") {
  const Tensor a = iota({2, 3}).requires_grad_();
  Tensor b = a * 3;
  b.fill_diagonal_(0);
  b.sum().backward();
  require_values(a.grad(), {0, 3, 3, 3, 0, 3});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) {
    Tensor t = in[0].square();
    t.fill_diagonal_(2);
    return t;
  }, {iota({3, 3}).requires_grad_()}));
}
