// scatter, scatter_reduce (core/ops/indexing/scatter.cpp), index_add, index_copy,
// index_fill, take (core/ops/indexing/index_ops.cpp): values against loops written in
// the test over plain vectors, gradients by gradcheck in float64, and the
// errors naming op, dim, index and size.
#include <functional>
#include <limits>
#include <string>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using Catch::Contains;
using ember_test::require_values;
using ember_test::values;

namespace {

// A 2-d reference: out = self, then for each (i, j) of index's shape the
// position (index[i][j], j) (dim 0) or (i, index[i][j]) (dim 1) of out meets
// src[i][j] through `combine`.
std::vector<double> scatter_2d(const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& src,
                               const std::function<double(double, double)>& combine) {
  std::vector<double> out = values(self);
  const std::vector<double> idx = values(index), s = values(src);
  const int64_t cols = self.size(1), icols = index.size(1), scols = src.size(1);
  for (int64_t i = 0; i < index.size(0); ++i)
    for (int64_t j = 0; j < icols; ++j) {
      const auto k = static_cast<int64_t>(idx[i * icols + j]);
      double& o = dim == 0 ? out[k * cols + j] : out[i * cols + k];
      o = combine(o, s[i * scols + j]);
    }
  return out;
}

double keep_second(double, double b) { return b; }

// Random distinct rows for each column: index (rows, cols) into a dim of size n >= rows.
Tensor distinct_along_0(int64_t rows, int64_t cols, int64_t n) {
  std::vector<Tensor> columns;
  for (int64_t j = 0; j < cols; ++j)
    columns.push_back(randperm(n).narrow(0, 0, rows).view({rows, 1}));
  return cat(columns, 1);
}

}  // namespace

// ---- scatter ----

TEST_CASE("scatter writes src at the indices along either dim, src larger than index",
          "[scatter]") {
  const Tensor self = arange(12, kDouble).view({3, 4});
  const Tensor src = arange(100, 115, kDouble).view({3, 5});  // larger: only index's corner is read
  const Tensor i0 = tensor({{2, 0, 1, 2}, {0, 1, 2, 0}});      // distinct per column
  require_values(scatter(self, 0, i0, src), scatter_2d(self, 0, i0, src, keep_second));
  const Tensor i1 = tensor({{3, 1}, {0, 2}, {2, 3}});
  require_values(self.scatter(1, i1, src), scatter_2d(self, 1, i1, src, keep_second));
  require_values(self.scatter(-1, i1, src), scatter_2d(self, 1, i1, src, keep_second));
  // Hand-written: row 0 gets src[0][0] = 100 at column 3 and src[0][1] = 101 at column 1.
  require_values(self.scatter(1, i1, src).select(0, 0), {0, 101, 2, 100});
  REQUIRE(values(self) == values(arange(12, kDouble).view({3, 4})));  // out of place
}

TEST_CASE("scatter with a scalar value, on int64, bool, a transposed self and 0-d tensors",
          "[scatter]") {
  const Tensor self = arange(6).view({2, 3});
  require_values(self.scatter(1, tensor({{2}, {0}}), 9), {0, 1, 9, 9, 4, 5});
  require_values(zeros({2, 2}, kBool).scatter(0, tensor({{1, 0}}), true), {0, 1, 1, 0});
  const Tensor t = arange(6, kDouble).view({2, 3}).t();  // (3, 2), non-contiguous
  // t = [[0, 3], [1, 4], [2, 5]]; column 0 gets -1 at row 2, column 1 at row 0.
  require_values(t.scatter(0, tensor({{2, 0}}), -1.0), {0, -1, 1, 4, -1, 5});
  require_values(tensor(5.0, kDouble).scatter(0, tensor(0), tensor(7.0, kDouble)), {7});
  REQUIRE(tensor(5.0, kDouble).scatter(0, tensor(0), 7.0).dim() == 0);
  // Truncated to the dtype, as libtorch: 2.5 into int64 is 2.
  require_values(zeros({3}, kLong).scatter(0, tensor({1}), 2.5), {0, 2, 0});
}

TEST_CASE("scatter_ writes in place and bumps the version once; empty index is a no-op",
          "[scatter]") {
  Tensor x = zeros({2, 3}, kDouble);
  const uint32_t v0 = x._version();
  x.scatter_(1, tensor({{2}, {1}}), tensor({{4.0}, {5.0}}, kDouble));
  REQUIRE(x._version() == v0 + 1);
  require_values(x, {0, 0, 4, 0, 5, 0});
  x.scatter_(0, tensor({{1, 1, 0}}), 8.0);
  require_values(x, {0, 0, 8, 8, 8, 0});
  x.scatter_(0, zeros({0, 3}, kLong), 1.0);
  require_values(x, {0, 0, 8, 8, 8, 0});
}

TEST_CASE("gradcheck: scatter from src and from a value, and scatter_ on a non-leaf",
          "[scatter]") {
  manual_seed(3);
  const Tensor self = randn({4, 5}, kDouble).requires_grad_();
  const Tensor src = randn({3, 6}, kDouble).requires_grad_();  // larger than index
  const Tensor index = distinct_along_0(3, 5, 4);
  auto fn = [&](const tensor_list& in) { return scatter(in[0], 0, index, in[1]); };
  REQUIRE_GRADCHECK(gradcheck(fn, {self, src}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {self, src}));
  auto fv = [&](const tensor_list& in) { return in[0].t().scatter(1, index.t(), 2.0); };
  REQUIRE_GRADCHECK(gradcheck(fv, {self}));
  REQUIRE_GRADCHECK(gradgradcheck(fv, {self}));
  auto inplace = [&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.scatter_(0, index, in[1]);
    return y;
  };
  REQUIRE_GRADCHECK(gradcheck(inplace, {self, src}));
  // By hand: the written places give self no gradient, src the gradient there.
  const Tensor a = randn({4, 5}, kDouble).requires_grad_();
  const Tensor b = randn({4, 1}, kDouble).requires_grad_();
  Tensor y = a * 1.0;
  y.scatter_(1, tensor({{0}, {1}, {2}, {3}}), b);
  (y * 3.0).sum().backward();
  const std::vector<double> g = values(a.grad());
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) REQUIRE(g[i * 5 + j] == (j == i ? 0.0 : 3.0));
  require_values(b.grad(), {3, 3, 3, 3});
}

TEST_CASE("scatter errors name the op, dim, index and size", "[scatter]") {
  const Tensor self = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(self.scatter(1, tensor({{3}}), ones({1, 1}, kDouble)),
                      Contains("scatter: index 3 is out of bounds for dimension 1 with size 3"));
  REQUIRE_THROWS_WITH(self.scatter(0, tensor({{-1}}), 1.0),
                      Contains("scatter: index -1 is out of bounds for dimension 0 with size 2"));
  REQUIRE_THROWS_WITH(self.scatter(1, tensor({{0}}), ones({1, 1})),
                      Contains("scatter: expected src to have self's dtype float64, got float32"));
  REQUIRE_THROWS_WITH(self.scatter(1, tensor({{0.0}}), 1.0),
                      Contains("scatter: expected an int64 index tensor"));
  REQUIRE_THROWS_WITH(self.scatter(2, tensor({{0}}), 1.0), Contains("scatter"));
  REQUIRE_THROWS_WITH(Tensor(self).scatter_(0, tensor({{2}}), 1.0),
                      Contains("scatter_: index 2 is out of bounds for dimension 0 with size 2"));
  const Tensor leaf = zeros({2}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(leaf.scatter_(0, tensor({0}), 1.0), Contains("scatter_: a leaf tensor"));
}

// ---- scatter_reduce ----

TEST_CASE("scatter_reduce matches a loop for every reduce, with and without self, repeated "
          "indices", "[scatter]") {
  manual_seed(7);
  const Tensor self = randn({4, 5}, kDouble) + 0.5;
  const Tensor src = randn({6, 5}, kDouble) + 0.5;
  const Tensor index = randint(0, 3, {6, 5});  // rows 0..2 get repeats, row 3 none
  const std::vector<double> s = values(self), idx = values(index), v = values(src);
  for (bool include_self : {true, false}) {
    for (std::string reduce : {"sum", "prod", "mean", "amax", "amin"}) {
      INFO(reduce << ", include_self " << include_self);
      std::vector<double> want(20);
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 5; ++j) {
          std::vector<double> met;
          if (include_self) met.push_back(s[i * 5 + j]);
          for (int64_t r = 0; r < 6; ++r)
            if (static_cast<int64_t>(idx[r * 5 + j]) == i) met.push_back(v[r * 5 + j]);
          if (met.empty()) {  // nothing scattered here: self stays
            want[i * 5 + j] = s[i * 5 + j];
            continue;
          }
          double acc = reduce == "prod" ? 1 : 0;
          if (reduce == "amax") acc = -std::numeric_limits<double>::infinity();
          if (reduce == "amin") acc = std::numeric_limits<double>::infinity();
          for (double m : met) {
            if (reduce == "sum" || reduce == "mean") acc += m;
            if (reduce == "prod") acc *= m;
            if (reduce == "amax") acc = std::max(acc, m);
            if (reduce == "amin") acc = std::min(acc, m);
          }
          want[i * 5 + j] = reduce == "mean" ? acc / static_cast<double>(met.size()) : acc;
        }
      require_values(scatter_reduce(self, 0, index, src, reduce, include_self), want);
      Tensor x = self.clone();
      x.scatter_reduce_(0, index, src, reduce, include_self);
      require_values(x, want);
    }
  }
}

TEST_CASE("scatter_reduce mean floors on int64; amax/amin start from the extremes without self",
          "[scatter]") {
  const Tensor self = tensor({{1, 2, 3}, {4, 5, 6}});
  const Tensor index = tensor({{0, 0, 2}, {0, 1, 1}});
  const Tensor src = tensor({{10, 20, 30}, {40, 50, 60}});
  // Row 0: (1 + 10 + 20) / 3 = 10.33 -> 10, (3 + 30) / 2 = 16.5 -> 16.
  require_values(self.scatter_reduce(1, index, src, "mean"), {10, 2, 16, 22, 38, 6});
  require_values(self.scatter_reduce(1, index, src, "mean", false), {15, 2, 30, 40, 55, 6});
  require_values(self.scatter_reduce(1, index, src, "amax", false), {20, 2, 30, 40, 60, 6});
  require_values(self.scatter_reduce(1, index, -src, "amin", false), {-20, 2, -30, -40, -60, 6});
  require_values(self.scatter_reduce(1, index, src, "prod"), {200, 2, 90, 160, 15000, 6});
}

TEST_CASE("gradcheck and gradgradcheck: scatter_reduce sum, mean, amax, amin, with and "
          "without self",
          "[scatter]") {
  manual_seed(11);
  const Tensor self = randn({3, 4}, kDouble).requires_grad_();
  const Tensor src = randn({5, 4}, kDouble).requires_grad_();
  const Tensor index = randint(0, 3, {5, 4});
  for (bool include_self : {true, false}) {
    for (std::string reduce : {"sum", "mean", "amax", "amin"}) {
      INFO(reduce << ", include_self " << include_self);
      auto fn = [&](const tensor_list& in) {
        return scatter_reduce(in[0], 0, index, in[1], reduce, include_self);
      };
      REQUIRE_GRADCHECK(gradcheck(fn, {self, src}));
      REQUIRE_GRADCHECK(gradgradcheck(fn, {self, src}));
    }
  }
}

TEST_CASE("scatter_reduce amax shares the gradient among tied winners", "[scatter]") {
  const Tensor self = tensor({2.0, 0.0}, kDouble).requires_grad_();
  const Tensor src = tensor({2.0, 1.0, 2.0}, kDouble).requires_grad_();
  // Position 0 meets self 2, src 2 and src 2: three winners share its gradient.
  scatter_reduce(self, 0, tensor({0, 0, 0}), src, "amax").sum().backward();
  require_values(self.grad(), {1.0 / 3, 1});
  require_values(src.grad(), {1.0 / 3, 0, 1.0 / 3});
}

TEST_CASE("scatter_reduce prod: gradcheck, in place, and zeros by hand", "[scatter]") {
  manual_seed(13);
  const Tensor self = randn({3, 4}, kDouble).requires_grad_();
  const Tensor src = randn({5, 6}, kDouble).requires_grad_();  // larger than index
  const Tensor index = randint(0, 3, {5, 4});
  for (bool include_self : {true, false}) {
    INFO("include_self " << include_self);
    auto fn = [&](const tensor_list& in) {
      return scatter_reduce(in[0], 0, index, in[1], "prod", include_self);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {self, src}));
    auto inplace = [&](const tensor_list& in) {
      Tensor y = in[0] * 1.0;
      y.scatter_reduce_(0, index, in[1], "prod", include_self);
      return y;
    };
    REQUIRE_GRADCHECK(gradcheck(inplace, {self, src}));
  }
  // Position 0 meets self 2 and src 0, 5: d/dsrc0 = 2 * 5 (the only zero),
  // d/dself0 = 0 * 5, d/dsrc1 = 2 * 0. Position 1 meets 3 and 4.
  const Tensor s1 = tensor({2.0, 3.0}, kDouble).requires_grad_();
  const Tensor v1 = tensor({0.0, 5.0, 4.0}, kDouble).requires_grad_();
  scatter_reduce(s1, 0, tensor({0, 0, 1}), v1, "prod").sum().backward();
  require_values(s1.grad(), {0, 4});
  require_values(v1.grad(), {10, 0, 3});
  // Two zeros at one position: every gradient there is 0; a zero self gets
  // the product of the others.
  const Tensor s2 = tensor({0.0, 3.0}, kDouble).requires_grad_();
  const Tensor v2 = tensor({0.0, 0.0, 4.0, 7.0}, kDouble).requires_grad_();
  scatter_reduce(s2, 0, tensor({0, 0, 1, 1}), v2, "prod").sum().backward();
  require_values(s2.grad(), {0, 28});
  require_values(v2.grad(), {0, 0, 21, 12});
  const Tensor s3 = tensor({0.0}, kDouble).requires_grad_();
  scatter_reduce(s3, 0, tensor({0, 0}), tensor({2.0, 5.0}, kDouble), "prod").sum().backward();
  require_values(s3.grad(), {10});
}

TEST_CASE("scatter_reduce refuses an unknown reduce and a bool self", "[scatter]") {
  const Tensor self = ones({3}, kDouble);
  REQUIRE_THROWS_WITH(scatter_reduce(self, 0, tensor({0}), ones({1}, kDouble), "max"),
                      Contains("scatter_reduce: reduce must be one of") && Contains("\"max\""));
  REQUIRE_THROWS_WITH(zeros({2}, kBool).scatter_reduce(0, tensor({0}), ones({1}, kBool), "amax"),
                      Contains("scatter_reduce"));
}

// ---- index_add, index_copy, index_fill ----

TEST_CASE("index_add adds alpha * source's slices at the indices, repeats adding up",
          "[scatter]") {
  const Tensor self = arange(12, kDouble).view({3, 4});
  const Tensor source = arange(1, 7, kDouble).view({3, 2});
  const Tensor index = tensor({3, 3});  // both source columns go to column 3
  std::vector<double> want = values(self);
  for (int64_t i = 0; i < 3; ++i) want[i * 4 + 3] += 2.5 * ((2 * i + 1) + (2 * i + 2));
  require_values(self.index_add(1, index, source, 2.5), want);
  require_values(index_add(self, -1, index, source, 2.5), want);
  Tensor x = self.clone();
  const uint32_t v0 = x._version();
  x.index_add_(0, tensor({2, 0}), ones({2, 4}, kDouble));
  REQUIRE(x._version() == v0 + 1);
  require_values(x, {1, 2, 3, 4, 4, 5, 6, 7, 9, 10, 11, 12});
  require_values(arange(3).index_add(0, tensor({1}), tensor({5}), 2), {0, 11, 2});  // int64
}

TEST_CASE("index_copy writes source's slices; index_fill fills the picked slices",
          "[scatter]") {
  const Tensor self = arange(12, kDouble).view({3, 4});
  const Tensor source = -arange(1, 9, kDouble).view({2, 4});
  require_values(self.index_copy(0, tensor({2, 0}), source),
                 {-5, -6, -7, -8, 4, 5, 6, 7, -1, -2, -3, -4});
  require_values(self.index_fill(1, tensor({0, 2}), 7.0), {7, 1, 7, 3, 7, 5, 7, 7, 7, 9, 7, 11});
  require_values(self.index_fill(0, tensor(1), tensor(-1.0, kDouble)),
                 {0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11});
  Tensor x = self.t();  // (4, 3), non-contiguous
  x.index_copy_(0, tensor({1}), tensor({{50.0, 51.0, 52.0}}, kDouble));
  require_values(self.select(1, 1), {50, 51, 52});  // x is a view of self: self changed
  Tensor y = self.clone();
  y.index_fill_(1, tensor({3}), 0.0);
  y.index_fill_(0, tensor({0}), tensor(9.0, kDouble));
  require_values(y, {9, 9, 9, 9, 4, 51, 6, 0, 8, 52, 10, 0});
}

TEST_CASE("gradcheck: index_add, index_copy, index_fill (scalar and tensor value)",
          "[scatter]") {
  manual_seed(5);
  const Tensor self = randn({4, 3}, kDouble).requires_grad_();
  const Tensor source = randn({4, 2}, kDouble).requires_grad_();
  const Tensor value = tensor(0.7, kDouble).requires_grad_();
  auto add = [&](const tensor_list& in) { return in[0].index_add(1, tensor({2, 2}), in[1], -1.5); };
  REQUIRE_GRADCHECK(gradcheck(add, {self, source}));
  REQUIRE_GRADCHECK(gradgradcheck(add, {self, source}));
  auto copy = [&](const tensor_list& in) { return in[0].index_copy(1, tensor({2, 0}), in[1]); };
  REQUIRE_GRADCHECK(gradcheck(copy, {self, source}));
  REQUIRE_GRADCHECK(gradgradcheck(copy, {self, source}));
  auto fill = [&](const tensor_list& in) { return in[0].index_fill(0, tensor({3, 1}), 2.0); };
  REQUIRE_GRADCHECK(gradcheck(fill, {self}));
  auto fill_t = [&](const tensor_list& in) {
    return in[0].index_fill(0, tensor({3, 1, 3}), in[1]);
  };
  REQUIRE_GRADCHECK(gradcheck(fill_t, {self, value}));
  REQUIRE_GRADCHECK(gradgradcheck(fill_t, {self, value}));
  // By hand: value gets the summed gradient of rows 1 and 3, once each.
  const Tensor a = randn({4, 3}, kDouble).requires_grad_();
  const Tensor v = tensor(0.7, kDouble).requires_grad_();
  (a.index_fill(0, tensor({3, 1, 3}), v) * 2.0).sum().backward();
  require_values(v.grad(), {2 * 2 * 3});
  require_values(a.grad(), {2, 2, 2, 0, 0, 0, 2, 2, 2, 0, 0, 0});
  auto inplace = [&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.index_add_(1, tensor({0, 1}), in[1]);
    y.index_copy_(0, tensor({2}), in[1].narrow(0, 0, 1).repeat({1, 2}).narrow(1, 0, 3));
    y.index_fill_(1, tensor({1}), 3.0);
    return y;
  };
  REQUIRE_GRADCHECK(gradcheck(inplace, {self, source}));
}

TEST_CASE("index_add, index_copy and index_fill errors name the op and what is wrong",
          "[scatter]") {
  const Tensor self = zeros({3, 4});
  REQUIRE_THROWS_WITH(self.index_add(1, tensor({0, 5}), ones({3, 2})),
                      Contains("index_add: index 5 is out of bounds for dimension 1 with size 4"));
  REQUIRE_THROWS_WITH(self.index_copy(0, tensor({-1}), ones({1, 4})),
                      Contains("index_copy: index -1 is out of bounds for dimension 0 with "
                               "size 3"));
  REQUIRE_THROWS_WITH(self.index_fill(1, tensor({4}), 1.0),
                      Contains("index_fill: index 4 is out of bounds for dimension 1 with size 4"));
  REQUIRE_THROWS_WITH(self.index_add(1, tensor({0}), ones({3, 2})),
                      Contains("index_add: source [3, 2] must have self's shape [3, 4] with 1"));
  REQUIRE_THROWS_WITH(self.index_copy(1, tensor({0}), ones({3, 1}, kDouble)),
                      Contains("index_copy: expected source to have self's dtype float32, "
                               "got float64"));
  REQUIRE_THROWS_WITH(self.index_fill(1, tensor({{0}}), 1.0),
                      Contains("index_fill: index must be 0-d or 1-d, got shape [1, 1]"));
  REQUIRE_THROWS_WITH(self.index_fill(1, tensor({0}), ones({1})),
                      Contains("index_fill: value must be a 0-d tensor"));
  REQUIRE_THROWS_WITH(Tensor(self).index_add_(0, tensor({3}), ones({1, 4})),
                      Contains("index_add_: index 3 is out of bounds for dimension 0 with size 3"));
}

// ---- take ----

TEST_CASE("take reads self as 1-d, negative indices from the end, in index's shape",
          "[scatter]") {
  const Tensor x = arange(6, kDouble).view({2, 3}).t();  // (3, 2): [[0, 3], [1, 4], [2, 5]]
  const Tensor got = x.take(tensor({{0, -1}, {3, 2}}));
  REQUIRE(got.sizes() == IntArrayRef{2, 2});
  require_values(got, {0, 5, 4, 1});  // row-major over x: 0, 3, 1, 4, 2, 5
  REQUIRE_THROWS_WITH(take(x, tensor({6})),
                      Contains("take: index 6 is out of range for a tensor of shape [3, 2]"));
  REQUIRE_THROWS_WITH(take(x, tensor({-7})), Contains("take: index -7 is out of range"));
  const Tensor a = randn({3, 4}, kDouble).requires_grad_();
  auto fn = [](const tensor_list& in) { return in[0].take(tensor({{5, -1}, {5, 0}})); };
  REQUIRE_GRADCHECK(gradcheck(fn, {a}));
}
