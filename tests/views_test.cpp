// Views share storage; their gradients (Note [View backward] in core/ops/shape/views.cpp).
#include "test_helpers.h"

#include <ember/core/shape.h>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::values;

namespace {
Tensor range_tensor(IntArrayRef shape, ScalarType dtype = kFloat) {
  return arange(compute_numel(shape), dtype).reshape(shape);
}
Tensor leaf64(IntArrayRef shape) { return randn(shape, kDouble).requires_grad_(); }
}  // namespace

TEST_CASE("view and reshape share storage when the layout allows", "[views]") {
  Tensor x = range_tensor({2, 3, 4});
  Tensor v = x.view({6, 4});
  REQUIRE(v.is_alias_of(x));
  REQUIRE(v.sizes() == IntArrayRef{6, 4});
  REQUIRE(x.view({-1}).sizes() == IntArrayRef{24});
  REQUIRE(x.view({4, -1}).sizes() == IntArrayRef{4, 6});
  v.select(0, 0).fill_(-1);
  REQUIRE(values(x.select(0, 0).select(0, 0)) == std::vector<double>(4, -1));
  REQUIRE(x.reshape({3, 8}).is_alias_of(x));
}

TEST_CASE("view on incompatible strides says to use reshape, which copies", "[views]") {
  Tensor x = range_tensor({3, 4});
  Tensor t = x.t();
  REQUIRE_FALSE(t.is_contiguous());
  REQUIRE_THROWS_WITH(t.view({12}), Catch::Contains("use reshape() instead") &&
                                        Catch::Contains("[4, 3]") && Catch::Contains("stride [1, 4]"));
  Tensor r = t.reshape({12});
  REQUIRE_FALSE(r.is_alias_of(x));
  REQUIRE(values(r) == std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  REQUIRE_THROWS_WITH(x.view({5, -1}), Catch::Contains("shape [5, -1] is invalid for input of size 12"));
  REQUIRE_THROWS_WITH(x.view({-1, -1}), Catch::Contains("only one dimension can be -1"));
}

TEST_CASE("view keeps sharing across split dims of a sliced tensor", "[views]") {
  // x[:, 1:3] of a (4, 4) tensor: rows are not contiguous with each other,
  // but each row's two elements are, so (4, 2) -> (4, 2, 1) and (2, 2, 2) work.
  Tensor x = range_tensor({4, 4}).slice(1, 1, 3);
  REQUIRE(x.view({4, 2, 1}).is_alias_of(x));
  REQUIRE(values(x.view({2, 2, 2})) == std::vector<double>{1, 2, 5, 6, 9, 10, 13, 14});
  REQUIRE_THROWS(x.view({8}));
}

TEST_CASE("transpose, t and permute swap sizes and strides", "[views]") {
  Tensor x = range_tensor({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  REQUIRE(p.sizes() == IntArrayRef{4, 2, 3});
  REQUIRE(p.strides() == IntArrayRef{1, 12, 4});
  REQUIRE(x.transpose(0, 2).sizes() == IntArrayRef{4, 3, 2});
  REQUIRE(values(range_tensor({2, 2}).t()) == std::vector<double>{0, 2, 1, 3});
  REQUIRE_THROWS_WITH(x.t(), Catch::Contains("<= 2 dimensions"));
  REQUIRE_THROWS_WITH(x.permute({0, 0, 1}), Catch::Contains("repeats"));
  REQUIRE_THROWS_WITH(x.permute({0, 1}), Catch::Contains("got 2 dims"));
}

TEST_CASE("narrow, slice, select and operator[] pick the stated elements", "[views]") {
  Tensor x = range_tensor({4, 5});
  REQUIRE(values(x.narrow(1, 1, 2).select(0, 0)) == std::vector<double>{1, 2});
  REQUIRE(values(x.slice(1, 0, 5, 2)[1]) == std::vector<double>{5, 7, 9});
  REQUIRE(values(x.slice(0, -2)) == std::vector<double>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19});
  REQUIRE(x[2][3].item<float>() == 13.0f);
  REQUIRE(x.index({3, 4}).item<float>() == 19.0f);
  REQUIRE(x.select(1, -1).sizes() == IntArrayRef{4});
  REQUIRE(x.slice(0, 3, 1).numel() == 0);
  REQUIRE_THROWS_WITH(x.select(0, 4), Catch::Contains("index 4 is out of range for dimension 0 of size 4"));
  REQUIRE_THROWS_WITH(x[-5], Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(x.narrow(1, 4, 2), Catch::Contains("exceeds size 5"));
}

TEST_CASE("expand broadcasts with stride 0 and checks sizes", "[views]") {
  Tensor x = range_tensor({3, 1});
  Tensor e = x.expand({2, 3, 4});
  REQUIRE(e.sizes() == IntArrayRef{2, 3, 4});
  REQUIRE(e.strides() == IntArrayRef{0, 1, 0});
  REQUIRE(values(e[1][2]) == std::vector<double>{2, 2, 2, 2});
  REQUIRE(x.expand({-1, 2}).sizes() == IntArrayRef{3, 2});
  REQUIRE(x.expand_as(zeros({3, 5})).sizes() == IntArrayRef{3, 5});
  REQUIRE_THROWS_WITH(x.expand({4, 4}), Catch::Contains("must match the existing size 3"));
}

TEST_CASE("squeeze, unsqueeze, flatten and unflatten reshape without copying", "[views]") {
  Tensor x = range_tensor({2, 1, 3, 1});
  REQUIRE(x.squeeze().sizes() == IntArrayRef{2, 3});
  REQUIRE(x.squeeze(1).sizes() == IntArrayRef{2, 3, 1});
  REQUIRE(x.squeeze(0).sizes() == IntArrayRef{2, 1, 3, 1});
  REQUIRE(x.unsqueeze(0).sizes() == IntArrayRef{1, 2, 1, 3, 1});
  REQUIRE(x.unsqueeze(-1).sizes() == IntArrayRef{2, 1, 3, 1, 1});
  REQUIRE(x.flatten().sizes() == IntArrayRef{6});
  REQUIRE(x.flatten(1).sizes() == IntArrayRef{2, 3});
  REQUIRE(x.flatten().is_alias_of(x));
  REQUIRE(x.flatten().unflatten(0, {3, -1}).sizes() == IntArrayRef{3, 2});
  REQUIRE(tensor(1.0).flatten().sizes() == IntArrayRef{1});
}

TEST_CASE("split and chunk cover the dimension", "[views]") {
  Tensor x = range_tensor({7});
  auto parts = x.split(3);
  REQUIRE(parts.size() == 3);
  REQUIRE(values(parts[2]) == std::vector<double>{6});
  auto chunks = x.chunk(2);
  REQUIRE(chunks.size() == 2);
  REQUIRE(chunks[0].numel() == 4);
}

TEST_CASE("unbind and split parts share one node; parts without a gradient count as zeros",
          "[views]") {
  // Note [One node for unbind and split]: one backward joins the parts' gradients.
  const Tensor x = leaf64({3, 4});
  const auto rows = x.unbind(0);
  const auto cols = x.split(3, 1);  // widths 3 and 1
  REQUIRE(rows[0].grad_fn() == rows[2].grad_fn());
  REQUIRE(rows[0].grad_fn()->name() == "UnbindBackward");
  REQUIRE(cols[0].grad_fn() == cols[1].grad_fn());
  REQUIRE(cols[0].grad_fn()->name() == "SplitBackward");
  // d/dx of 2 rows[1] + 3 cols[1] (column 3): only those elements, the rest zero.
  (rows[1].sum() * 2.0 + cols[1].sum() * 3.0).backward();
  REQUIRE(values(x.grad()) == std::vector<double>{0, 0, 0, 3, 2, 2, 2, 5, 0, 0, 0, 3});
  auto fn = [](const tensor_list& in) {
    const auto r = in[0].unbind(1);
    const auto c = in[0].chunk(2, 0);
    return r[0] * r[2] + c[1].sum();
  };
  const Tensor y = leaf64({4, 3});
  REQUIRE_GRADCHECK(gradcheck(fn, {y}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {y}));
}

TEST_CASE("contiguous copies only non-contiguous tensors", "[views]") {
  Tensor x = range_tensor({3, 4});
  REQUIRE(x.contiguous().is_same(x));
  Tensor c = x.t().contiguous();
  REQUIRE(c.is_contiguous());
  REQUIRE(values(c) == values(x.t()));
}

TEST_CASE("cat and stack join along a dim with type promotion", "[views]") {
  Tensor a = range_tensor({2, 2}), b = range_tensor({2, 1}, kDouble);
  Tensor c = cat({a, b}, 1);
  REQUIRE(c.sizes() == IntArrayRef{2, 3});
  REQUIRE(c.scalar_type() == kDouble);
  REQUIRE(values(c) == std::vector<double>{0, 1, 0, 2, 3, 1});
  REQUIRE(values(cat({a.t(), a}, 0)) == std::vector<double>{0, 2, 1, 3, 0, 1, 2, 3});
  Tensor s = stack({a, a}, 1);
  REQUIRE(s.sizes() == IntArrayRef{2, 2, 2});
  REQUIRE(values(s) == std::vector<double>{0, 1, 0, 1, 2, 3, 2, 3});
  REQUIRE_THROWS_WITH(cat({a, range_tensor({3, 3})}, 1), Catch::Contains("sizes must match except in dimension 1"));
  REQUIRE_THROWS_WITH(stack({a, b}), Catch::Contains("one shape"));
  REQUIRE_THROWS_WITH(cat(std::vector<Tensor>{}), Catch::Contains("non-empty"));
}

TEST_CASE("views share the version counter; in-place writes through a view bump it", "[views]") {
  Tensor x = zeros({4});
  Tensor v = x.narrow(0, 1, 2);
  const uint32_t before = x._version();
  v.fill_(1);
  REQUIRE(x._version() == before + 1);
  REQUIRE(values(x) == std::vector<double>{0, 1, 1, 0});
}

TEST_CASE("broadcast_tensors expands to the common shape", "[views]") {
  auto out = broadcast_tensors({zeros({3, 1}), zeros({4}), zeros({})});
  for (const Tensor& t : out) REQUIRE(t.sizes() == IntArrayRef{3, 4});
  REQUIRE_THROWS_WITH(broadcast_tensors({zeros({3}), zeros({4})}),
                      Catch::Contains("shapes [3] and [4] cannot be broadcast"));
}

TEST_CASE("gradcheck: view ops", "[views]") {
  Tensor x = leaf64({2, 3, 4});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].view({6, 4}); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].transpose(0, 2); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].permute({1, 2, 0}); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].slice(2, 1, 4, 2); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].select(1, 2); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].narrow(0, 1, 1); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].unsqueeze(1).squeeze(1); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].flatten(1); }, {x}));
  // A non-contiguous input through reshape (which copies).
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].transpose(0, 1).reshape({-1}); }, {x}));
}

TEST_CASE("gradcheck: expand sums the gradient back", "[views]") {
  Tensor x = leaf64({3, 1});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].expand({2, 3, 4}); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return in[0].expand({2, 3, 4}) * in[0]; }, {x}));
}

TEST_CASE("gradcheck: cat and stack route gradients to each input", "[views]") {
  Tensor a = leaf64({2, 3}), b = leaf64({2, 2});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return cat({in[0], in[1]}, 1); }, {a, b}));
  Tensor c = leaf64({2, 3});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return stack({in[0], in[1]}, 0); }, {a, c}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return cat({in[0] * in[0], in[1]}, 1); }, {a, b}));
}

TEST_CASE("gradgradcheck through slice and select", "[views]") {
  Tensor x = leaf64({3, 4});
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return in[0].slice(1, 1, 3) * in[0].slice(1, 0, 2); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return in[0].select(0, 1) * in[0].select(0, 2); }, {x}));
}

TEST_CASE("in-place ops on a view whose result requires grad are refused before writing", "[views]") {
  Tensor x = leaf64({3});
  Tensor y = x * 1.0;
  REQUIRE_THROWS_WITH(y.narrow(0, 0, 1).mul_(2.0), Catch::Contains("view whose result requires grad"));
  // A view of a constant written from a tensor that requires grad: refused, data untouched.
  Tensor base = zeros({3}, kDouble);
  REQUIRE_THROWS_WITH(base.narrow(0, 0, 2).add_(x.narrow(0, 0, 2)), Catch::Contains("add_: in-place operations on a view"));
  REQUIRE(values(base) == std::vector<double>{0, 0, 0});
  REQUIRE(base._version() == 0);
  NoGradGuard guard;
  y.narrow(0, 0, 1).mul_(2.0);  // fine without grad recording
}

TEST_CASE("split and chunk of an empty dim give empty parts, as PyTorch", "[views]") {
  const Tensor x = zeros({0, 2});
  const std::vector<Tensor> chunks = x.chunk(3, 0);
  REQUIRE(chunks.size() == 3);
  for (const Tensor& c : chunks) CHECK(c.sizes() == IntArrayRef{0, 2});
  CHECK(x.chunk(1, 0).size() == 1);
  CHECK(zeros({2, 0, 3}).chunk(2, 1).size() == 2);
  const std::vector<Tensor> parts = x.split(2, 0);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].sizes() == IntArrayRef{0, 2});
  CHECK(x.split(0, 0).size() == 1);
  REQUIRE_THROWS_WITH(ones({3}).split(0, 0),
                      Catch::Contains("split: split_size must be positive, got 0 for a dim of "
                                      "size 3"));
  CHECK(ones({5}).chunk(2, 0).size() == 2);  // sizes 3 and 2, unchanged
}
