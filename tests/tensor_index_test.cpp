// Tensor::index / index_put_ with libtorch's index lists (core/tensor_index.h),
// nonzero, masked_select, masked_fill_. Expected values are written from the
// NumPy/PyTorch indexing rules on arange inputs, where element values name
// their own positions.
#include <catch2/catch.hpp>

#include "test_helpers.h"

using namespace ember;
using namespace ember::indexing;
using Catch::Contains;
using ember_test::values;

namespace {
// (2, 3, 4): element [i][j][k] = 12 i + 4 j + k.
Tensor cube(ScalarType t = kFloat) { return arange(24, t).reshape({2, 3, 4}); }
std::vector<double> v(std::initializer_list<double> l) { return l; }
}  // namespace

TEST_CASE("integers, slices, None and Ellipsis give views with PyTorch's shapes", "[index]") {
  const Tensor x = cube();
  const Tensor a = x.index({Slice(), 1});  // x[:, 1]
  REQUIRE(a.sizes() == IntArrayRef({2, 4}));
  REQUIRE(values(a) == v({4, 5, 6, 7, 16, 17, 18, 19}));
  REQUIRE(a.is_alias_of(x));
  const Tensor b = x.index({Ellipsis, Slice(1, None, 2)});  // x[..., 1::2]
  REQUIRE(b.sizes() == IntArrayRef({2, 3, 2}));
  REQUIRE(values(b.index({1, 2})) == v({21, 23}));
  const Tensor c = x.index({None, 0, "...", -1});  // x[None, 0, ..., -1]
  REQUIRE(c.sizes() == IntArrayRef({1, 3}));
  REQUIRE(values(c) == v({3, 7, 11}));
  REQUIRE(x.index({true}).sizes() == IntArrayRef({1, 2, 3, 4}));
  REQUIRE(x.index({Slice(), false}).sizes() == IntArrayRef({2, 0, 3, 4}));
  REQUIRE(x.index({1, 2, 3}).item<float>() == 23);
  REQUIRE(values(x.index({Slice(-1), Slice(None, -1), Slice(2)})) == v({14, 15, 18, 19}));
}

TEST_CASE("an int64 tensor index gathers along its dim, with negative positions", "[index]") {
  const Tensor x = cube();
  const Tensor idx = tensor({2, 0, -1});
  const Tensor a = x.index({Slice(), idx});  // x[:, [2, 0, -1]]
  REQUIRE(a.sizes() == IntArrayRef({2, 3, 4}));
  REQUIRE(values(a.index({0, Slice(), 0})) == v({8, 0, 8}));
  const Tensor rows = tensor({{1, 0}, {0, 0}});  // a (2, 2) index: its shape replaces the dim
  const Tensor b = x[rows];
  REQUIRE(b.sizes() == IntArrayRef({2, 2, 3, 4}));
  REQUIRE(values(b.index({Slice(), Slice(), 0, 0})) == v({12, 0, 0, 0}));
}

TEST_CASE("several tensor indices broadcast; adjacent ones stay in place, others go first",
          "[index]") {
  const Tensor x = cube();
  // x[:, [0, 2], [1, 3]]: adjacent, the pair's dim stays at position 1.
  const Tensor a = x.index({Slice(), tensor({0, 2}), tensor({1, 3})});
  REQUIRE(a.sizes() == IntArrayRef({2, 2}));
  REQUIRE(values(a) == v({1, 11, 13, 23}));
  // x[[1, 0], :, [3]]: not adjacent, the broadcast dim comes first.
  const Tensor b = x.index({tensor({1, 0}), Slice(), tensor({3})});
  REQUIRE(b.sizes() == IntArrayRef({2, 3}));
  REQUIRE(values(b) == v({15, 19, 23, 3, 7, 11}));
  // x[[[0], [1]], [0, 2]] broadcasts to (2, 2).
  const Tensor c = x.index({tensor({{0}, {1}}), tensor({0, 2})});
  REQUIRE(c.sizes() == IntArrayRef({2, 2, 4}));
  REQUIRE(values(c.index({Slice(), Slice(), 0})) == v({0, 8, 12, 20}));
}

TEST_CASE("a bool mask selects the positions where it is true", "[index]") {
  const Tensor x = cube();
  const Tensor m = tensor({true, false, true});
  const Tensor a = x.index({Slice(), m});  // x[:, m]
  REQUIRE(a.sizes() == IntArrayRef({2, 2, 4}));
  REQUIRE(values(a.index({1, Slice(), 0})) == v({12, 20}));
  const Tensor big = x.gt(20);  // a mask over every dim: a 1-d result
  REQUIRE(values(x.index({big})) == v({21, 22, 23}));
  REQUIRE(values(masked_select(x, big)) == v({21, 22, 23}));
  REQUIRE(values(x.masked_select(tensor({false, false, false, true}))) == v({3, 7, 11, 15, 19, 23}));
  REQUIRE(values(nonzero(tensor({{0, 3}, {5, 0}}))) == v({0, 1, 1, 0}));
  REQUIRE(nonzero(zeros({2, 2})).sizes() == IntArrayRef({0, 2}));
}

TEST_CASE("gradients flow through tensor indices, summing repeated positions", "[index]") {
  const Tensor x = arange(6, kDouble).reshape({2, 3}).requires_grad_();
  x.index({Slice(), tensor({2, 2, 0})}).sum().backward();
  REQUIRE(values(x.grad()) == v({1, 0, 2, 1, 0, 2}));
  const Tensor y = randn({3, 4, 3}, kDouble).requires_grad_();
  const autograd::GradcheckFn fn = [](const tensor_list& in) {
    return in[0].index({tensor({2, 0}), Slice(1), tensor({true, false, true})});
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {y}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {y}));
}

TEST_CASE("index_put_ writes through views and a bool mask", "[index]") {
  Tensor x = zeros({2, 3});
  x.index_put_({Slice(), 0}, 7);
  x.index_put_({1, Slice(1)}, tensor({8.0f, 9.0f}));
  REQUIRE(values(x) == v({7, 0, 0, 7, 8, 9}));
  x.index_put_({x.gt(7.5)}, -1);
  REQUIRE(values(x) == v({7, 0, 0, 7, -1, -1}));
  x.index_put_({Slice(), tensor({true, false, true})}, tensor(5.0f));
  REQUIRE(values(x) == v({5, 0, 5, 5, -1, 5}));
  Tensor y = ones({3});
  y.masked_fill_(tensor({false, true, false}), 0);
  REQUIRE(values(y) == v({1, 0, 1}));
}

TEST_CASE("index_put_ with a mask on a non-leaf keeps the gradient of what stays", "[index]") {
  const Tensor w = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  Tensor y = w * 2.0;
  y.index_put_({tensor({true, false, true})}, 0.0);
  (y * y).sum().backward();
  REQUIRE(values(w.grad()) == v({0, 16, 0}));  // only y[1] = 2 w[1] is left: d(4 w^2) = 8 w
}

TEST_CASE("bad index lists are refused with the op, the index and the shape", "[index]") {
  const Tensor x = cube();
  REQUIRE_THROWS_WITH(x.index({0, 0, 0, 0}), Contains("index: too many indices for a tensor of "
                                                      "shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(x.index({Ellipsis, Ellipsis}), Contains("one Ellipsis"));
  REQUIRE_THROWS_WITH(x.index({Slice(), tensor({0, 3})}),
                      Contains("index 3 is out of bounds for dimension 1 with size 3"));
  REQUIRE_THROWS_WITH(x.index({tensor({1.0f})}), Contains("must be int64 or bool, got float32"));
  REQUIRE_THROWS_WITH(x.index({tensor({true, false, true})}),
                      Contains("does not match the indexed shape"));
  REQUIRE_THROWS_WITH(x.index({Slice(0, None, -1)}), Contains("slice step must be positive"));
  REQUIRE_THROWS_WITH(x.clone().index_put_({tensor({5})}, 1),
                      Contains("index_put_: index 5 is out of bounds for dimension 0 with size 2"));
  REQUIRE_THROWS_WITH(x.clone().index_put_({Slice(), tensor({-4})}, 1),
                      Contains("index_put_: index -4 is out of bounds for dimension 1 with "
                               "size 3"));
  REQUIRE_THROWS_WITH(x.index_put({tensor({0, 1})}, ones({2, 4})),
                      Contains("index_put: shape mismatch: value tensor of shape [2, 4] cannot be "
                               "broadcast to indexing result of shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(x.index({"..x"}), Contains("the only string index is \"...\""));
}

// ---- index_put_ / index_put with int64 tensor indices ----

TEST_CASE("index_put_ writes at int64 indices apart (B first) and adjacent (B in place), "
          "values broadcast, negative positions", "[index]") {
  // x[[1, 0], :, [3, -4]] = vals: B = (2) comes first, then dim 1: vals (3) broadcasts to (2, 3).
  Tensor x = zeros({2, 3, 4});
  const std::vector<double> vals = {10, 20, 30};
  x.index_put_({tensor({1, 0}), Slice(), tensor({3, -4})}, tensor({10.0f, 20.0f, 30.0f}));
  std::vector<double> want(24, 0);
  for (int64_t j = 0; j < 3; ++j) {
    want[12 * 1 + 4 * j + 3] = vals[j];
    want[12 * 0 + 4 * j + 0] = vals[j];
  }
  REQUIRE(values(x) == want);

  // y[:, [[2], [0]], [1, 3]] = w: B = (2, 2) replaces dims 1-2, w is (2, 2, 2).
  Tensor y = zeros({2, 3, 4});
  const Tensor w = arange(8, kFloat).view({2, 2, 2}) + 100;
  y.index_put_({Slice(), tensor({{2}, {0}}), tensor({1, 3})}, w);
  std::vector<double> want_y(24, 0);
  const int64_t rows[] = {2, 0}, cols[] = {1, 3};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t b = 0; b < 2; ++b)
        want_y[12 * i + 4 * rows[a] + cols[b]] = 100 + 4 * i + 2 * a + b;
  REQUIRE(values(y) == want_y);

  // z[None, ..., [0, 2]] = 5 with a 0-d value.
  Tensor z = zeros({2, 4});
  z.index_put_({None, Ellipsis, tensor({0, 2})}, tensor(5.0f));
  REQUIRE(values(z) == v({5, 0, 5, 0, 5, 0, 5, 0}));
}

TEST_CASE("index_put_ with accumulate adds repeated positions up; int64 too", "[index]") {
  Tensor x = zeros({3}, kDouble);
  x.index_put_({tensor({0, 0, 2, 0})}, tensor({1.0, 2.0, 3.0, 4.0}, kDouble), true);
  REQUIRE(values(x) == v({7, 0, 3}));
  Tensor m = zeros({2, 3}, kLong);
  m.index_put_({tensor({1, 1, -2})}, tensor({1, 2, 3}), /*accumulate=*/true);
  REQUIRE(values(m) == v({1, 2, 3, 2, 4, 6}));
  // Without accumulate and without repeats, the values land as given.
  Tensor p = ones({4}, kDouble);
  p.index_put_({tensor({3, 1})}, tensor({8.0, 9.0}, kDouble), false);
  REQUIRE(values(p) == v({1, 9, 1, 8}));
}

TEST_CASE("a bool mask takes one value per selected element; index_put leaves self as it was",
          "[index]") {
  const Tensor y = arange(6, kFloat).view({2, 3});
  const Tensor mask = tensor({{true, false, true}, {false, true, false}});
  const Tensor out = y.index_put({mask}, tensor({10.0f, 20.0f, 30.0f}));
  REQUIRE(values(out) == v({10, 1, 20, 3, 30, 5}));
  REQUIRE(values(y) == v({0, 1, 2, 3, 4, 5}));
  REQUIRE(values(y.index_put({mask}, tensor({10.0f, 20.0f, 30.0f}), true)) ==
          v({10, 1, 22, 3, 34, 5}));
  Tensor c = y.clone();
  c.index_put_({Slice(), tensor({false, true, true})}, tensor({{7.0f, 8.0f}, {9.0f, 6.0f}}));
  REQUIRE(values(c) == v({0, 7, 8, 3, 9, 6}));
}

TEST_CASE("libtorch's list form: nullopt is a whole dim", "[index]") {
  Tensor x = zeros({2, 3});
  const std::vector<std::optional<Tensor>> list = {std::nullopt, tensor({2, 2})};
  x.index_put_(list, tensor({1.0f, 2.0f}).view({2, 1}), /*accumulate=*/true);
  REQUIRE(values(x) == v({0, 0, 2, 0, 0, 4}));
  REQUIRE(values(index_put(x, {tensor({1})}, tensor(5.0f))) == v({0, 0, 2, 5, 5, 5}));
  REQUIRE(values(x) == v({0, 0, 2, 0, 0, 4}));
}

TEST_CASE("gradcheck: index_put self and values, accumulate or not, in place on a non-leaf",
          "[index]") {
  manual_seed(2);
  const Tensor self = randn({3, 4, 2}, kDouble).requires_grad_();
  const Tensor vals = randn({4}, kDouble).requires_grad_();  // broadcast over B = (2) and dim 1
  const Tensor i0 = tensor({2, 0}), i2 = tensor({1, 0});
  for (bool acc : {false, true}) {
    INFO("accumulate " << acc);
    auto fn = [&](const tensor_list& in) {
      return in[0].index_put({i0, Slice(), i2}, in[1].view({1, 4}), acc);
    };
    REQUIRE_GRADCHECK(autograd::gradcheck(fn, {self, vals}));
    REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {self, vals}));
  }
  auto dup = [&](const tensor_list& in) {  // repeats only with accumulate
    return in[0].index_put({tensor({1, 1, 2})}, in[1].view({1, 4, 1}), true);
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(dup, {self, vals}));
  auto inplace = [&](const tensor_list& in) {
    Tensor y = in[0] * 2.0;
    y.index_put_({Slice(), tensor({3, 0})}, in[1].view({2, 2}).unsqueeze(0));
    return y;
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(inplace, {self, vals}));
  // By hand: written places give self nothing, values the gradient there.
  const Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  const Tensor b = tensor({4.0, 5.0}, kDouble).requires_grad_();
  (a.index_put({tensor({2, 0})}, b) * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  REQUIRE(values(a.grad()) == v({0, 2, 0}));
  REQUIRE(values(b.grad()) == v({3, 1}));
}
