// index_select, gather, scatter_add(_), masked_fill, embedding, one_hot:
// forward against values worked out by hand or a naive loop here, strided
// inputs, zero sizes, error messages, and first and second derivatives.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using ember_test::values;

namespace {

std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

Tensor leaf(IntArrayRef sizes) { return randn(sizes, kDouble).requires_grad_(); }

// x: (3, 4) holding 0..11
Tensor grid() { return arange(12, kDouble).view({3, 4}); }

}  // namespace

// ---- index_select ----

TEST_CASE("index_select picks rows or columns, repeats included", "[indexing]") {
  const Tensor x = grid();
  const Tensor rows = x.index_select(0, tensor({2, 0, 2}));
  REQUIRE(shape(rows) == std::vector<int64_t>{3, 4});
  REQUIRE(values(rows) == std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11});
  const Tensor cols = index_select(x, -1, tensor({3, 1}));
  REQUIRE(shape(cols) == std::vector<int64_t>{3, 2});
  REQUIRE(values(cols) == std::vector<double>{3, 1, 7, 5, 11, 9});
  // A 0-d index keeps the dim, with size 1.
  REQUIRE(values(x.index_select(0, tensor(1))) == std::vector<double>{4, 5, 6, 7});
}

TEST_CASE("index_select reads transposed and sliced inputs", "[indexing]") {
  const Tensor xt = grid().t();  // (4, 3): [[0, 4, 8], [1, 5, 9], ...]
  REQUIRE(values(xt.index_select(0, tensor({3, 0}))) == std::vector<double>{3, 7, 11, 0, 4, 8});
  REQUIRE(values(xt.index_select(1, tensor({2}))) == std::vector<double>{8, 9, 10, 11});
  const Tensor sliced = grid().slice(1, 0, 4, 2);  // (3, 2): [[0, 2], [4, 6], [8, 10]]
  REQUIRE(values(sliced.index_select(0, tensor({1, 1}))) == std::vector<double>{4, 6, 4, 6});
  // A strided index tensor.
  REQUIRE(values(grid().index_select(0, tensor({2, 9, 0}).slice(0, 0, 3, 2))) ==
          std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3});
}

TEST_CASE("index_select with an empty index gives an empty dim", "[indexing]") {
  const Tensor out = grid().index_select(1, empty({0}, kLong));
  REQUIRE(shape(out) == std::vector<int64_t>{3, 0});
}

TEST_CASE("index_select refuses out-of-range and negative indices, naming the range",
          "[indexing]") {
  REQUIRE_THROWS_WITH(
      grid().index_select(0, tensor({0, 3})),
      Catch::Contains("index_select: index 3 is out of bounds for dimension 0 with size 3 "
                      "(valid range [0, 2])"));
  REQUIRE_THROWS_WITH(
      grid().index_select(1, tensor({-1})),
      Catch::Contains("index_select: index -1 is out of bounds for dimension 1 with size 4 "
                      "(valid range [0, 3])"));
  REQUIRE_THROWS_WITH(grid().index_select(0, tensor({0.0})),
                      Catch::Contains("index_select: expected an int64 index tensor, got float32"));
  REQUIRE_THROWS_WITH(grid().index_select(0, tensor({{0, 1}})),
                      Catch::Contains("index_select: index must be 0-d or 1-d, got shape [1, 2]"));
  REQUIRE_THROWS_WITH(grid().index_select(2, tensor({0})), Catch::Contains("index_select"));
}

// ---- gather ----

TEST_CASE("gather picks one element per index position along dim", "[indexing]") {
  const Tensor x = grid();
  // out[i][j] = x[i][index[i][j]]
  const Tensor g1 = x.gather(1, tensor({{3, 0}, {1, 1}, {2, 3}}));
  REQUIRE(values(g1) == std::vector<double>{3, 0, 5, 5, 10, 11});
  // out[i][j] = x[index[i][j]][j]; the index may be smaller than x in other dims.
  const Tensor g0 = gather(x, 0, tensor({{2, 0, 1}}));
  REQUIRE(shape(g0) == std::vector<int64_t>{1, 3});
  REQUIRE(values(g0) == std::vector<double>{8, 1, 6});
  // Transposed input and expanded index.
  const Tensor gt = x.t().gather(0, tensor({{1}}).expand({2, 3}));  // x.t()[1][j] = x[j][1]
  REQUIRE(values(gt) == std::vector<double>{1, 5, 9, 1, 5, 9});
  REQUIRE(shape(x.gather(1, empty({3, 0}, kLong))) == std::vector<int64_t>{3, 0});
  REQUIRE(tensor(7.0).gather(0, tensor(0)).item<double>() == 7.0);
}

TEST_CASE("gather works on every dtype", "[indexing]") {
  REQUIRE(values(tensor({{1, 2}, {3, 4}}).gather(1, tensor({{1}, {0}}))) ==
          std::vector<double>{2, 3});
  REQUIRE(values(tensor({true, false}).gather(0, tensor({1, 1, 0}))) ==
          std::vector<double>{0, 0, 1});
}

TEST_CASE("gather errors name the op, shapes and bad index", "[indexing]") {
  REQUIRE_THROWS_WITH(
      grid().gather(1, tensor({{4}})),
      Catch::Contains("gather: index 4 is out of bounds for dimension 1 with size 4 "
                      "(valid range [0, 3])"));
  REQUIRE_THROWS_WITH(
      grid().gather(1, tensor({1, 2})),
      Catch::Contains("gather: index [2] must have as many dimensions as self [3, 4]"));
  REQUIRE_THROWS_WITH(
      grid().gather(1, zeros({4, 1}, kLong)),
      Catch::Contains("gather: index [4, 1] is larger than self [3, 4] in dimension 0 (4 > 3)"));
  REQUIRE_THROWS_WITH(grid().gather(0, zeros({1, 1})),
                      Catch::Contains("gather: expected an int64 index tensor, got float32"));
}

// ---- scatter_add ----

TEST_CASE("scatter_add sums src into self at the indices, duplicates accumulating", "[indexing]") {
  const Tensor self = zeros({2, 4}, kDouble);
  const Tensor index = tensor({{0, 3, 0}, {1, 1, 2}});
  const Tensor src = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, kDouble);
  const Tensor out = self.scatter_add(1, index, src);
  REQUIRE(values(out) == std::vector<double>{4, 0, 0, 2, 0, 9, 6, 0});
  REQUIRE(values(self) == std::vector<double>(8, 0.0));  // out of place
  // Along dim 0 with a src larger than index (only its leading corner is used).
  const Tensor big_src = arange(1, 10, kDouble).view({3, 3});
  const Tensor out0 = scatter_add(zeros({2, 3}, kDouble), 0, tensor({{1, 0}, {1, 1}}), big_src);
  REQUIRE(values(out0) == std::vector<double>{0, 2, 0, 5, 5, 0});
}

TEST_CASE("scatter_add_ writes in place, into a strided self, and bumps the version",
          "[indexing]") {
  Tensor base = zeros({4, 3}, kDouble);
  Tensor self = base.t();  // (3, 4), column-major view
  const uint32_t v0 = self._version();
  self.scatter_add_(1, tensor({{3}, {0}, {3}}), tensor({{1.0}, {2.0}, {3.0}}, kDouble));
  REQUIRE(self._version() > v0);
  REQUIRE(values(self) == std::vector<double>{0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3});
  REQUIRE(base[3][0].item<double>() == 1.0);
}

TEST_CASE("scatter_add over many columns splits threads without races", "[indexing]") {
  // index (4, 40000) along dim 0 takes the per-column parallel path; rows collide.
  set_num_threads(2);
  const int64_t cols = 40000;
  const Tensor index = randint(0, 2, {4, cols});
  const Tensor src = randn({4, cols}, kDouble);
  const Tensor out = zeros({2, cols}, kDouble).scatter_add(0, index, src);
  std::vector<double> expected(2 * cols, 0.0);
  const auto iv = values(index), sv = values(src);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < cols; ++j)
      expected[static_cast<size_t>(iv[i * cols + j]) * cols + j] += sv[i * cols + j];
  REQUIRE(values(out) == expected);
}

TEST_CASE("scatter_add errors name the op and what is wrong", "[indexing]") {
  const Tensor self = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(
      self.scatter_add(1, tensor({{3}}), ones({1, 1}, kDouble)),
      Catch::Contains("scatter_add: index 3 is out of bounds for dimension 1 with size 3 "
                      "(valid range [0, 2])"));
  REQUIRE_THROWS_WITH(
      self.scatter_add(1, tensor({{0}}), ones({1, 1})),
      Catch::Contains("scatter_add: expected src to have self's dtype float64, got float32"));
  REQUIRE_THROWS_WITH(
      self.scatter_add(1, tensor({{0, 1}}), ones({1, 1}, kDouble)),
      Catch::Contains("scatter_add: index [1, 2] is larger than src [1, 1] in dimension 1"));
  REQUIRE_THROWS_WITH(
      Tensor(self).scatter_add_(0, tensor({{-1}}), ones({1, 1}, kDouble)),
      Catch::Contains("scatter_add_: index -1 is out of bounds for dimension 0 with size 2"));
}

// ---- masked_fill ----

TEST_CASE("masked_fill writes the value where the broadcast mask is true", "[indexing]") {
  const Tensor x = grid();
  const Tensor mask = tensor({true, false, false, true});  // broadcasts over rows
  const Tensor out = x.masked_fill(mask, -1.5);
  REQUIRE(values(out) ==
          std::vector<double>{-1.5, 1, 2, -1.5, -1.5, 5, 6, -1.5, -1.5, 9, 10, -1.5});
  // Both broadcast: (3, 1) x with a (3, 2) mask.
  const Tensor col = tensor({{1}, {2}, {3}});
  const Tensor filled = masked_fill(col, tensor({{true, false}, {false, false}, {false, true}}), 0);
  REQUIRE(shape(filled) == std::vector<int64_t>{3, 2});
  REQUIRE(values(filled) == std::vector<double>{0, 1, 2, 2, 3, 0});
  REQUIRE(values(x.t().masked_fill(x.t() > 9.0, 0.0)) ==
          std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 0, 3, 7, 0});
}

TEST_CASE("masked_fill refuses a non-bool mask", "[indexing]") {
  REQUIRE_THROWS_WITH(grid().masked_fill(ones({4}, kLong), 0),
                      Catch::Contains("masked_fill: expected a bool mask, got int64"));
  REQUIRE_THROWS_WITH(grid().masked_fill(ones({5}, kBool), 0), Catch::Contains("masked_fill"));
}

// ---- embedding and one_hot ----

TEST_CASE("embedding looks up rows for indices of any shape", "[indexing]") {
  const Tensor weight = arange(10, kDouble).view({5, 2});
  const Tensor out = embedding(weight, tensor({{4, 0}, {1, 4}, {2, 2}}));
  REQUIRE(shape(out) == std::vector<int64_t>{3, 2, 2});
  REQUIRE(values(out) == std::vector<double>{8, 9, 0, 1, 2, 3, 8, 9, 4, 5, 4, 5});
  REQUIRE(shape(embedding(weight, tensor(3))) == std::vector<int64_t>{2});
  REQUIRE_THROWS_WITH(
      embedding(weight, tensor({5})),
      Catch::Contains("embedding: index 5 is out of bounds for dimension 0 with size 5 "
                      "(valid range [0, 4])"));
  REQUIRE_THROWS_WITH(embedding(weight, tensor({1.0})),
                      Catch::Contains("embedding: expected an int64 index tensor, got float32"));
  REQUIRE_THROWS_WITH(
      embedding(ones({5}), tensor({1})),
      Catch::Contains("embedding: weight must be 2-d (num_embeddings, embedding_dim), got [5]"));
}

TEST_CASE("one_hot marks each class, inferring the count as max + 1", "[indexing]") {
  const Tensor inferred = one_hot(tensor({2, 0}));
  REQUIRE(inferred.scalar_type() == kLong);
  REQUIRE(shape(inferred) == std::vector<int64_t>{2, 3});
  REQUIRE(values(inferred) == std::vector<double>{0, 0, 1, 1, 0, 0});
  const Tensor explicit_count = one_hot(tensor({{1}, {0}}).t(), 4);
  REQUIRE(shape(explicit_count) == std::vector<int64_t>{1, 2, 4});
  REQUIRE(values(explicit_count) == std::vector<double>{0, 1, 0, 0, 1, 0, 0, 0});
  REQUIRE(shape(one_hot(empty({0}, kLong), 3)) == std::vector<int64_t>{0, 3});
  REQUIRE_THROWS_WITH(one_hot(tensor({1, -1})),
                      Catch::Contains("one_hot: class values must be non-negative, got -1"));
  REQUIRE_THROWS_WITH(one_hot(tensor({-5, -2})),  // an inferred count below 0
                      Catch::Contains("one_hot: class values must be non-negative, got -5"));
  // A strided 1-d view is read in place, its values in view order.
  REQUIRE(values(one_hot(tensor({2, 9, 0, 9, 1}).slice(0, 0, 5, 2), 3)) ==
          std::vector<double>{0, 0, 1, 1, 0, 0, 0, 1, 0});
  REQUIRE_THROWS_WITH(
      one_hot(tensor({3}), 3),
      Catch::Contains("one_hot: class value 3 is out of range for 3 classes (valid range [0, 2])"));
  REQUIRE_THROWS_WITH(one_hot(empty({0}, kLong)),
                      Catch::Contains("one_hot: cannot infer num_classes from an empty tensor"));
  REQUIRE_THROWS_WITH(one_hot(tensor({1.0})),
                      Catch::Contains("one_hot: expected an int64 index tensor, got float32"));
}

// ---- derivatives ----

TEST_CASE("gradcheck: index_select with repeated indices and a transposed input", "[indexing]") {
  manual_seed(21);
  const Tensor idx = tensor({2, 0, 2, 1});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [idx](const tensor_list& x) { return x[0].index_select(0, idx); }, {leaf({3, 2})}));
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [idx](const tensor_list& x) { return x[0].t().index_select(1, idx); }, {leaf({3, 2})}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(
      [idx](const tensor_list& x) { return x[0].index_select(0, idx).square(); }, {leaf({3, 2})}));
}

TEST_CASE("gradcheck: gather, including a non-contiguous input", "[indexing]") {
  manual_seed(22);
  const Tensor idx = tensor({{0, 2, 2}, {1, 0, 1}});
  REQUIRE_GRADCHECK(autograd::gradcheck([idx](const tensor_list& x) { return x[0].gather(1, idx); },
                                        {leaf({2, 3})}));
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [idx](const tensor_list& x) { return x[0].t().gather(1, idx); }, {leaf({3, 2})}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(
      [idx](const tensor_list& x) { return x[0].gather(1, idx) * x[0].gather(1, idx); },
      {leaf({2, 3})}));
}

TEST_CASE("gradcheck: scatter_add for self and for a src larger than index", "[indexing]") {
  manual_seed(23);
  const Tensor idx = tensor({{1, 0}, {1, 1}});
  REQUIRE_GRADCHECK(
      autograd::gradcheck([idx](const tensor_list& x) { return x[0].scatter_add(0, idx, x[1]); },
                          {leaf({2, 3}), leaf({3, 3})}));
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [idx](const tensor_list& x) { return x[0].scatter_add(1, idx, x[1].t()); },
      {leaf({2, 3}), leaf({2, 2})}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(
      [idx](const tensor_list& x) { return x[0].scatter_add(0, idx, x[1]).square(); },
      {leaf({2, 3}), leaf({3, 3})}));
}

TEST_CASE("gradcheck: scatter_add_ in place on a non-leaf", "[indexing]") {
  manual_seed(24);
  const Tensor idx = tensor({{2, 0}});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [idx](const tensor_list& x) {
        Tensor y = x[0] * 1.0;
        y.scatter_add_(1, idx, x[1]);
        return y;
      },
      {leaf({1, 3}), leaf({1, 2})}));
}

TEST_CASE("gradcheck: masked_fill with a broadcast mask", "[indexing]") {
  manual_seed(25);
  const Tensor mask = tensor({{true, false, true}, {false, false, true}});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [mask](const tensor_list& x) { return x[0].masked_fill(mask, 2.0); }, {leaf({3})}));
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [mask](const tensor_list& x) { return x[0].t().masked_fill(mask, 2.0); }, {leaf({3, 2})}));
}

TEST_CASE("gradcheck: embedding sums the gradient of repeated rows", "[indexing]") {
  manual_seed(26);
  const Tensor indices = tensor({{1, 3}, {1, 0}});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [indices](const tensor_list& x) { return embedding(x[0], indices); }, {leaf({4, 2})}));
  const Tensor w = zeros({4, 2}, kDouble).requires_grad_();
  embedding(w, indices).sum().backward();
  REQUIRE(values(w.grad()) == std::vector<double>{1, 1, 2, 2, 0, 0, 1, 1});
}
