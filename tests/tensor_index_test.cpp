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
  REQUIRE_THROWS_WITH(x.clone().index_put_({tensor({0})}, 1),
                      Contains("index_put_: only a single bool mask"));
  REQUIRE_THROWS_WITH(x.index({"..x"}), Contains("the only string index is \"...\""));
}
