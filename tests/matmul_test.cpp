// mm, bmm, matmul, addmm, linear, dot, outer: forward against a float64
// triple loop written here, strided inputs, NumPy's 1-d and batch rules,
// zero sizes, error messages, and first and second derivatives.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using ember_test::values;

namespace {

// (n, k) @ (k, m) in float64, straight from the definition.
std::vector<double> naive_mm(const std::vector<double>& a, const std::vector<double>& b, int64_t n,
                             int64_t k, int64_t m) {
  std::vector<double> c(static_cast<size_t>(n * m), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * m + j];
      c[i * m + j] = s;
    }
  return c;
}

// Every element within atol + rtol * |expected|.
void require_close(const Tensor& actual, const std::vector<double>& expected, double rtol = 1e-5,
                   double atol = 1e-5) {
  const std::vector<double> got = values(actual);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    REQUIRE(std::abs(got[i] - expected[i]) <= atol + rtol * std::abs(expected[i]));
  }
}

std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

Tensor leaf(IntArrayRef sizes) { return randn(sizes, kDouble).requires_grad_(); }

}  // namespace

TEST_CASE("mm equals a float64 triple loop in float32 and float64", "[matmul]") {
  manual_seed(1);
  // 70 x 130 x 33 is past Eigen's small-product path, so its blocked GEMM runs.
  for (auto [n, k, m] :
       {std::tuple<int64_t, int64_t, int64_t>{7, 13, 5}, {70, 130, 33}, {1, 9, 1}}) {
    for (ScalarType t : {kFloat, kDouble}) {
      const Tensor a = randn({n, k}, t), b = randn({k, m}, t);
      const Tensor c = mm(a, b);
      REQUIRE(shape(c) == std::vector<int64_t>{n, m});
      REQUIRE(c.scalar_type() == t);
      require_close(c, naive_mm(values(a), values(b), n, k, m), t == kFloat ? 1e-4 : 1e-12,
                    t == kFloat ? 1e-4 : 1e-12);
    }
  }
}

TEST_CASE("mm of int64 matrices is exact", "[matmul]") {
  const Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  const Tensor b = tensor({{7, 8}, {9, 10}, {11, 12}});
  const Tensor c = a.mm(b);
  REQUIRE(c.scalar_type() == kLong);
  REQUIRE(values(c) == std::vector<double>{58, 64, 139, 154});
}

TEST_CASE("mm reads transposed, row-sliced and column-strided views correctly", "[matmul]") {
  manual_seed(2);
  const Tensor base_a = randn({9, 6}, kDouble), base_b = randn({12, 10}, kDouble);
  const Tensor a = base_a.t();                              // (6, 9), column-major
  const Tensor b = base_b.narrow(0, 2, 9).narrow(1, 1, 7);  // (9, 7), row stride 10
  require_close(mm(a, b), naive_mm(values(a), values(b), 6, 9, 7), 1e-12, 1e-12);
  const Tensor bt = base_b.narrow(0, 0, 7).t();  // (10, 7) column-major with ld 10
  const Tensor a2 = randn({6, 10}, kDouble);
  require_close(mm(a2, bt), naive_mm(values(a2), values(bt), 6, 10, 7), 1e-12, 1e-12);
  const Tensor strided = base_b.slice(1, 0, 10, 2);  // (12, 5), neither layout: copied
  const Tensor a3 = randn({4, 12}, kDouble);
  require_close(mm(a3, strided), naive_mm(values(a3), values(strided), 4, 12, 5), 1e-12, 1e-12);
}

TEST_CASE("mm of transposed views allocates only its output", "[matmul]") {
  const Tensor a = randn({64, 32}), b = randn({48, 64});
  const auto before = cpu::memory_stats().num_allocs;
  const Tensor c = mm(a.t(), b.t());  // (32, 64) @ (64, 48): both column-major, no copies
  REQUIRE(cpu::memory_stats().num_allocs - before == 1);
  REQUIRE(shape(c) == std::vector<int64_t>{32, 48});
}

TEST_CASE("matmul follows NumPy's rules for 1-d operands", "[matmul]") {
  manual_seed(3);
  const Tensor v = randn({4}, kDouble), w = randn({4}, kDouble);
  const Tensor d = matmul(v, w);
  REQUIRE(d.dim() == 0);
  const auto vv = values(v), wv = values(w);
  require_close(d, {vv[0] * wv[0] + vv[1] * wv[1] + vv[2] * wv[2] + vv[3] * wv[3]}, 1e-12, 1e-12);

  const Tensor m = randn({4, 3}, kDouble);
  const Tensor vm = matmul(v, m);  // (4) @ (4, 3) -> (3)
  REQUIRE(shape(vm) == std::vector<int64_t>{3});
  require_close(vm, naive_mm(vv, values(m), 1, 4, 3), 1e-12, 1e-12);

  const Tensor mv = matmul(m.t(), v);  // (3, 4) @ (4) -> (3)
  REQUIRE(shape(mv) == std::vector<int64_t>{3});
  require_close(mv, naive_mm(values(m.t()), vv, 3, 4, 1), 1e-12, 1e-12);

  const Tensor batch = randn({2, 5, 4}, kDouble);
  const Tensor bv = matmul(batch, v);  // (2, 5, 4) @ (4) -> (2, 5)
  REQUIRE(shape(bv) == std::vector<int64_t>{2, 5});
  require_close(bv, naive_mm(values(batch), vv, 10, 4, 1), 1e-12, 1e-12);

  const Tensor rhs = randn({2, 4, 3}, kDouble);
  const Tensor vb = matmul(v, rhs);  // (4) @ (2, 4, 3) -> (2, 3)
  REQUIRE(shape(vb) == std::vector<int64_t>{2, 3});
  std::vector<double> expected;
  for (int64_t i = 0; i < 2; ++i)
    for (double x : naive_mm(vv, values(rhs[i]), 1, 4, 3)) expected.push_back(x);
  require_close(vb, expected, 1e-12, 1e-12);
}

TEST_CASE("matmul broadcasts batch dimensions", "[matmul]") {
  manual_seed(4);
  const Tensor a = randn({2, 1, 3, 4}, kDouble), b = randn({5, 4, 6}, kDouble);
  const Tensor c = matmul(a, b);
  REQUIRE(shape(c) == std::vector<int64_t>{2, 5, 3, 6});
  std::vector<double> expected;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (double x : naive_mm(values(a[i][0]), values(b[j]), 3, 4, 6)) expected.push_back(x);
  require_close(c, expected, 1e-12, 1e-12);

  // N-d @ 2-d folds the batch into rows of one GEMM.
  const Tensor m = randn({4, 2}, kDouble);
  const Tensor folded = matmul(a, m);
  REQUIRE(shape(folded) == std::vector<int64_t>{2, 1, 3, 2});
  require_close(folded, naive_mm(values(a), values(m), 6, 4, 2), 1e-12, 1e-12);
  // A batch that cannot fold without a copy broadcasts the matrix over bmm instead.
  const Tensor at = randn({2, 4, 3}, kDouble).transpose(1, 2);  // (2, 3, 4)
  const Tensor unfolded = matmul(at, m);
  REQUIRE(shape(unfolded) == std::vector<int64_t>{2, 3, 2});
  require_close(unfolded, naive_mm(values(at), values(m), 6, 4, 2), 1e-12, 1e-12);
}

TEST_CASE("bmm equals per-batch products on both threading paths", "[matmul]") {
  manual_seed(5);
  set_num_threads(2);
  // Many small matrices (one per thread) and a few large ones (Eigen threads each).
  for (auto [batch, n, k, m] : {std::array<int64_t, 4>{33, 3, 5, 2}, {2, 130, 140, 120}}) {
    const Tensor a = randn({batch, n, k}), b = randn({batch, m, k}).transpose(1, 2);
    const Tensor c = bmm(a, b);
    REQUIRE(shape(c) == std::vector<int64_t>{batch, n, m});
    std::vector<double> expected;
    for (int64_t i = 0; i < batch; ++i)
      for (double x : naive_mm(values(a[i]), values(b[i]), n, k, m)) expected.push_back(x);
    require_close(c, expected, 1e-4, 1e-4);
  }
}

TEST_CASE("matrix products over zero-size dims give zeros or empty results", "[matmul]") {
  const Tensor k0 = mm(ones({3, 0}), ones({0, 4}));
  REQUIRE(shape(k0) == std::vector<int64_t>{3, 4});
  REQUIRE(values(k0) == std::vector<double>(12, 0.0));
  REQUIRE(shape(mm(ones({0, 3}), ones({3, 4}))) == std::vector<int64_t>{0, 4});
  REQUIRE(shape(bmm(ones({0, 2, 3}), ones({0, 3, 4}))) == std::vector<int64_t>{0, 2, 4});
  REQUIRE(values(bmm(ones({2, 2, 0}), ones({2, 0, 3}))) == std::vector<double>(12, 0.0));
  REQUIRE(matmul(ones({0}), ones({0})).item<double>() == 0.0);
  REQUIRE(shape(matmul(ones({2, 0, 3}), ones({3, 5}))) == std::vector<int64_t>{2, 0, 5});
  const Tensor bias = full({3, 4}, 2.0);
  REQUIRE(values(addmm(bias, ones({3, 0}), ones({0, 4}), 0.5)) == std::vector<double>(12, 1.0));
}

TEST_CASE("addmm computes beta * self + alpha * mat1 @ mat2 with a broadcast self", "[matmul]") {
  manual_seed(6);
  const Tensor self = randn({5}, kDouble), a = randn({3, 4}, kDouble), b = randn({4, 5}, kDouble);
  const Tensor out = addmm(self, a, b, 0.5, 2.0);
  std::vector<double> expected = naive_mm(values(a), values(b), 3, 4, 5);
  const auto s = values(self);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = 0.5 * s[i % 5] + 2.0 * expected[i];
  require_close(out, expected, 1e-12, 1e-12);
  REQUIRE(shape(self.addmm(a, b)) == std::vector<int64_t>{3, 5});
}

TEST_CASE("addmm with beta = 0 ignores nan in self", "[matmul]") {
  const Tensor self = full({2, 2}, std::numeric_limits<double>::quiet_NaN(), kDouble);
  const Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble);
  REQUIRE(values(addmm(self, a, a, 0)) == std::vector<double>{7, 10, 15, 22});
}

TEST_CASE("linear is x @ w^T + b for 1-d, 2-d and 3-d inputs", "[matmul]") {
  manual_seed(7);
  const Tensor w = randn({3, 4}, kDouble), b = randn({3}, kDouble);
  const auto wt = values(w.t()), bv = values(b);
  auto expected = [&](const Tensor& x, bool with_bias) {
    const int64_t rows = x.numel() / 4;
    std::vector<double> y = naive_mm(values(x), wt, rows, 4, 3);
    if (with_bias)
      for (size_t i = 0; i < y.size(); ++i) y[i] += bv[i % 3];
    return y;
  };
  const Tensor x2 = randn({5, 4}, kDouble), x3 = randn({2, 5, 4}, kDouble),
               x1 = randn({4}, kDouble);
  require_close(linear(x2, w, b), expected(x2, true), 1e-12, 1e-12);
  require_close(linear(x2, w), expected(x2, false), 1e-12, 1e-12);
  const Tensor y3 = linear(x3, w, b);
  REQUIRE(shape(y3) == std::vector<int64_t>{2, 5, 3});
  require_close(y3, expected(x3, true), 1e-12, 1e-12);
  const Tensor y1 = linear(x1, w, b);
  REQUIRE(shape(y1) == std::vector<int64_t>{3});
  require_close(y1, expected(x1, true), 1e-12, 1e-12);
  // A transposed (non-contiguous) 3-d input is folded through a copy.
  const Tensor xt = randn({5, 2, 4}, kDouble).transpose(0, 1);
  require_close(linear(xt, w, b), expected(xt, true), 1e-12, 1e-12);
}

TEST_CASE("dot and outer of vectors, including strided ones", "[matmul]") {
  const Tensor a = tensor({1.0, 2.0, 3.0}, kDouble), b = tensor({4.0, 5.0, 6.0}, kDouble);
  REQUIRE(dot(a, b).item<double>() == 32.0);
  const Tensor strided = tensor({1.0, 9.0, 2.0, 9.0, 3.0, 9.0}, kDouble).slice(0, 0, 6, 2);
  REQUIRE(dot(strided, b).item<double>() == 32.0);
  REQUIRE(dot(tensor({1, 2}), tensor({3, 4})).item<int64_t>() == 11);
  const Tensor o = outer(a, tensor({1.0, -1.0}, kDouble));
  REQUIRE(shape(o) == std::vector<int64_t>{3, 2});
  REQUIRE(values(o) == std::vector<double>{1, -1, 2, -2, 3, -3});
}

TEST_CASE("matrix product errors name the op, the shapes and the mismatch", "[matmul]") {
  REQUIRE_THROWS_WITH(matmul(ones({64, 3}), ones({4, 10})),
                      Catch::Contains("matmul: [64, 3] @ [4, 10]: inner sizes differ (3 vs 4)"));
  REQUIRE_THROWS_WITH(mm(ones({64, 3}), ones({4, 10})),
                      Catch::Contains("mm: [64, 3] @ [4, 10]: inner sizes differ (3 vs 4)"));
  REQUIRE_THROWS_WITH(matmul(ones({2, 3}), ones({4})),
                      Catch::Contains("matmul: [2, 3] @ [4]: inner sizes differ (3 vs 4)"));
  REQUIRE_THROWS_WITH(mm(ones({3}), ones({3, 2})),
                      Catch::Contains("mm: expected 2-d tensors, got [3] and [3, 2]"));
  REQUIRE_THROWS_WITH(bmm(ones({2, 3, 4}), ones({3, 4, 5})),
                      Catch::Contains("bmm: [2, 3, 4] @ [3, 4, 5]: batch sizes differ (2 vs 3)"));
  REQUIRE_THROWS_WITH(bmm(ones({3, 4}), ones({4, 5})),
                      Catch::Contains("bmm: expected 3-d tensors, got [3, 4] and [4, 5]"));
  REQUIRE_THROWS_WITH(
      matmul(ones({}), ones({3})),
      Catch::Contains("matmul: both arguments need at least 1 dimension, got [] and [3]"));
  REQUIRE_THROWS_WITH(
      matmul(ones({2, 3, 4}), ones({5, 4, 6})),
      Catch::Contains(
          "matmul: [2, 3, 4] @ [5, 4, 6]: batch dimensions [2] and [5] do not broadcast"));
  REQUIRE_THROWS_WITH(
      mm(ones({2, 3}), ones({3, 2}, kDouble)),
      Catch::Contains(
          "mm: expected both operands to have the same dtype, got float32 and float64"));
  REQUIRE_THROWS_WITH(matmul(ones({2, 3}, kBool), ones({3, 2}, kBool)),
                      Catch::Contains("matmul: dtype bool is not supported"));
  REQUIRE_THROWS_WITH(
      addmm(ones({4}), ones({2, 3}), ones({3, 5})),
      Catch::Contains("addmm: self of shape [4] does not broadcast to the product's shape [2, 5]"));
  REQUIRE_THROWS_WITH(dot(ones({3}), ones({4})),
                      Catch::Contains("dot: [3] @ [4]: inner sizes differ (3 vs 4)"));
  REQUIRE_THROWS_WITH(dot(ones({1, 3}), ones({3})),
                      Catch::Contains("dot: expected 1-d tensors, got [1, 3] and [3]"));
  REQUIRE_THROWS_WITH(outer(ones({2, 2}), ones({3})),
                      Catch::Contains("outer: expected 1-d tensors"));
  REQUIRE_THROWS_WITH(
      linear(ones({5, 3}), ones({10, 4})),
      Catch::Contains("linear: input [5, 3] @ weight [10, 4]^T: inner sizes differ (3 vs 4)"));
  REQUIRE_THROWS_WITH(
      linear(ones({5, 4}), ones({4})),
      Catch::Contains("linear: weight must be 2-d (out_features, in_features), got [4]"));
}

TEST_CASE("matrix products on different devices are refused before touching memory", "[matmul]") {
  if (!cuda::is_available()) {
    WARN("skipped: no CUDA device to build a device mismatch");
    return;
  }
  REQUIRE_THROWS_WITH(mm(ones({2, 2}), ones({2, 2}).cuda()),
                      Catch::Contains("mm: expected all tensors on the same device"));
}

TEST_CASE("gradcheck: mm and bmm with transposed inputs", "[matmul]") {
  manual_seed(8);
  const Tensor a = leaf({4, 3}), b = leaf({5, 4});
  REQUIRE_GRADCHECK(
      autograd::gradcheck([](const tensor_list& x) { return mm(x[0].t(), x[1].t()); }, {a, b}));
  const Tensor p = leaf({2, 3, 4}), q = leaf({2, 4, 2});
  REQUIRE_GRADCHECK(
      autograd::gradcheck([](const tensor_list& x) { return bmm(x[0], x[1]); }, {p, q}));
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [](const tensor_list& x) { return bmm(x[1].transpose(1, 2), x[0].transpose(1, 2)); },
      {p, q}));
}

TEST_CASE("gradcheck: matmul with 1-d operands and broadcast batches", "[matmul]") {
  manual_seed(9);
  const Tensor a = leaf({2, 1, 3, 4}), b = leaf({3, 4, 2}), v = leaf({4}), m = leaf({4, 2});
  const autograd::GradcheckFn product = [](const tensor_list& x) { return matmul(x[0], x[1]); };
  REQUIRE_GRADCHECK(autograd::gradcheck(product, {a, b}));         // batch broadcast
  REQUIRE_GRADCHECK(autograd::gradcheck(product, {a, v}));         // N-d @ 1-d
  REQUIRE_GRADCHECK(autograd::gradcheck(product, {v, b}));         // 1-d @ N-d
  REQUIRE_GRADCHECK(autograd::gradcheck(product, {v, leaf({4})}));  // dot
  REQUIRE_GRADCHECK(autograd::gradcheck(product, {a, m}));         // N-d @ 2-d, folded
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [](const tensor_list& x) { return matmul(x[0].transpose(1, 2), x[1]); },  // not foldable
      {leaf({2, 4, 3}), m}));
}

TEST_CASE("gradcheck: addmm, linear, dot and outer", "[matmul]") {
  manual_seed(10);
  const Tensor self = leaf({1, 3}), a = leaf({2, 4}), b = leaf({4, 3});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [](const tensor_list& x) { return addmm(x[0], x[1], x[2], 0.5, -2.0); }, {self, a, b}));
  const Tensor x3 = leaf({2, 3, 4}), w = leaf({5, 4}), bias = leaf({5});
  REQUIRE_GRADCHECK(autograd::gradcheck(
      [](const tensor_list& x) { return linear(x[0], x[1], x[2]); }, {x3, w, bias}));
  REQUIRE_GRADCHECK(
      autograd::gradcheck([](const tensor_list& x) { return linear(x[0], x[1]); }, {leaf({4}), w}));
  REQUIRE_GRADCHECK(autograd::gradcheck([](const tensor_list& x) { return dot(x[0], x[1]); },
                                        {leaf({5}), leaf({5})}));
  REQUIRE_GRADCHECK(autograd::gradcheck([](const tensor_list& x) { return outer(x[0], x[1]); },
                                        {leaf({3}), leaf({2})}));
}

TEST_CASE("gradgradcheck: mm, matmul and linear differentiate twice", "[matmul]") {
  manual_seed(11);
  REQUIRE_GRADCHECK(autograd::gradgradcheck([](const tensor_list& x) { return mm(x[0], x[1].t()); },
                                            {leaf({3, 2}), leaf({4, 2})}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck([](const tensor_list& x) { return matmul(x[0], x[1]); },
                                            {leaf({2, 1, 2, 3}), leaf({2, 3, 2})}));
  REQUIRE_GRADCHECK(
      autograd::gradgradcheck([](const tensor_list& x) { return linear(x[0], x[1], x[2]); },
                              {leaf({2, 3}), leaf({4, 3}), leaf({4})}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck([](const tensor_list& x) { return dot(x[0], x[1]); },
                                            {leaf({3}), leaf({3})}));
}
