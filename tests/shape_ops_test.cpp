// flip, roll, repeat, tril, triu (core/ops/shape/shape_ops.cpp) and the views
// unbind, movedim, swapaxes, swapdims (core/ops/shape/views.cpp): values against
// index arithmetic written in the test, errors naming op and shape, gradients.
#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
// 0, 1, ..., n-1 as a (rows, cols) float64 tensor.
Tensor grid(int64_t rows, int64_t cols) { return arange(rows * cols, kDouble).view({rows, cols}); }
}  // namespace

TEST_CASE("flip reverses each listed dim", "[shape_ops]") {
  const Tensor x = grid(2, 3);  // [[0,1,2],[3,4,5]]
  require_values(flip(x, {1}), {2, 1, 0, 5, 4, 3});
  require_values(x.flip({0}), {3, 4, 5, 0, 1, 2});
  require_values(flip(x, {0, -1}), {5, 4, 3, 2, 1, 0});
  const Tensor same = flip(x, {});
  require_values(same, values(x));
  REQUIRE_FALSE(same.is_alias_of(x));
  REQUIRE(flip(zeros({0, 2}), {0}).sizes() == IntArrayRef{0, 2});
}

TEST_CASE("flip rejects out-of-range and repeated dims naming the shape", "[shape_ops]") {
  REQUIRE_THROWS_WITH(flip(grid(2, 3), {2}), Catch::Contains("flip") && Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(flip(grid(2, 3), {1, -1}), Catch::Contains("flip") && Catch::Contains("more than once"));
}

TEST_CASE("roll shifts with wrap-around, negative and oversized shifts included", "[shape_ops]") {
  const Tensor x = grid(2, 3);
  // out[i][j] = x[i][(j - s) mod 3]
  for (int64_t s : {1, -1, 4, 0}) {
    std::vector<double> want;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) want.push_back(static_cast<double>(i * 3 + (((j - s) % 3) + 3) % 3));
    INFO("shift " << s);
    require_values(roll(x, {s}, {1}), want);
  }
  require_values(roll(x, {1}), {5, 0, 1, 2, 3, 4});  // flattened
  require_values(x.roll({1, 1}, {0, 1}), {5, 3, 4, 2, 0, 1});
  REQUIRE(roll(zeros({0, 3}), {2}, {0}).sizes() == IntArrayRef{0, 3});
  REQUIRE_FALSE(roll(x, {3}, {1}).is_alias_of(x));
}

TEST_CASE("roll rejects mismatched shifts and dims, and dims out of range", "[shape_ops]") {
  REQUIRE_THROWS_WITH(roll(grid(2, 3), {1, 2}, {0}), Catch::Contains("roll"));
  REQUIRE_THROWS_WITH(roll(grid(2, 3), {1}, {5}), Catch::Contains("roll") && Catch::Contains("[2, 3]"));
}

TEST_CASE("repeat tiles along each dim and adds leading dims", "[shape_ops]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble);
  require_values(repeat(x, {3}), {1, 2, 1, 2, 1, 2});
  const Tensor r = x.repeat({2, 2});
  REQUIRE(r.sizes() == IntArrayRef{2, 4});
  require_values(r, {1, 2, 1, 2, 1, 2, 1, 2});
  const Tensor g = grid(2, 2).repeat({2, 1, 3});  // out[k][i][j] = x[i][j % 2]
  REQUIRE(g.sizes() == IntArrayRef{2, 2, 6});
  std::vector<double> want;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 6; ++j) want.push_back(i * 2 + j % 2);
  require_values(g, want);
  const Tensor same = x.repeat({1});
  REQUIRE_FALSE(same.is_alias_of(x));
  REQUIRE(x.repeat({0}).numel() == 0);
  REQUIRE_THROWS_WITH(grid(2, 2).repeat({2}), Catch::Contains("repeat") && Catch::Contains("[2, 2]"));
}

TEST_CASE("tril and triu keep col - row <= k and >= k", "[shape_ops]") {
  const Tensor x = grid(3, 4) + 1;
  for (int64_t k : {-1, 0, 2}) {
    std::vector<double> lower, upper;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        const double v = static_cast<double>(i * 4 + j + 1);
        lower.push_back(j - i <= k ? v : 0);
        upper.push_back(j - i >= k ? v : 0);
      }
    INFO("diagonal " << k);
    require_values(tril(x, k), lower);
    require_values(x.triu(k), upper);
  }
  const Tensor batch = ones({2, 2, 2}, kLong).tril();
  REQUIRE(batch.scalar_type() == kLong);
  require_values(batch, {1, 0, 1, 1, 1, 0, 1, 1});
  REQUIRE(ones({2, 2}, kBool).triu().scalar_type() == kBool);
  REQUIRE_THROWS_WITH(tril(ones({3})), Catch::Contains("tril") && Catch::Contains("[3]"));
}

TEST_CASE("unbind gives the slices along a dim as views", "[shape_ops]") {
  const Tensor x = grid(2, 3);
  const std::vector<Tensor> cols = x.unbind(1);
  REQUIRE(cols.size() == 3);
  require_values(cols[2], {2, 5});
  REQUIRE(cols[0].is_alias_of(x));
  REQUIRE(unbind(x).size() == 2);
  REQUIRE(unbind(zeros({0, 2})).empty());
  REQUIRE_THROWS_WITH(x.unbind(2), Catch::Contains("unbind"));
}

TEST_CASE("movedim, swapaxes and swapdims are permute/transpose views", "[shape_ops]") {
  const Tensor x = arange(24, kDouble).view({2, 3, 4});
  const Tensor m = movedim(x, 0, -1);
  REQUIRE(m.sizes() == IntArrayRef{3, 4, 2});
  REQUIRE(m.is_alias_of(x));
  require_values(m, values(x.permute({1, 2, 0})));
  REQUIRE(x.movedim({0, 1}, {2, 0}).sizes() == IntArrayRef{3, 4, 2});
  require_values(x.movedim({0, 1}, {2, 0}), values(x.permute({1, 2, 0})));
  REQUIRE(x.movedim(2, 0).sizes() == IntArrayRef{4, 2, 3});
  require_values(swapaxes(x, 0, 2), values(x.transpose(0, 2)));
  require_values(x.swapdims(1, 2), values(x.transpose(1, 2)));
  REQUIRE_THROWS_WITH(x.movedim({0, 0}, {1, 2}), Catch::Contains("movedim") && Catch::Contains("repeated"));
  REQUIRE_THROWS_WITH(x.movedim({0}, {1, 2}), Catch::Contains("movedim"));
  REQUIRE_THROWS_WITH(x.movedim(3, 0), Catch::Contains("movedim") && Catch::Contains("out of range"));
}

TEST_CASE("flip, roll, repeat, tril, triu, unbind, movedim pass gradcheck and gradgradcheck",
          "[shape_ops]") {
  Tensor x = (grid(3, 4) * 0.37 - 1.1).t().requires_grad_();  // (4, 3), non-contiguous
  const std::vector<std::function<Tensor(const tensor_list&)>> fns = {
      [](const tensor_list& in) { return flip(in[0], {0, 1}); },
      [](const tensor_list& in) { return roll(in[0], {1, -2}, {0, 1}); },
      [](const tensor_list& in) { return roll(in[0], {5}); },
      [](const tensor_list& in) { return in[0].repeat({2, 1, 2}); },
      [](const tensor_list& in) { return tril(in[0], -1); },
      [](const tensor_list& in) { return triu(in[0], 1); },
      [](const tensor_list& in) { return in[0].unbind(1)[2] * in[0].unbind(1)[0]; },
      [](const tensor_list& in) { return in[0].movedim(0, 1) * 2.0; },
  };
  for (const auto& fn : fns) {
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}
