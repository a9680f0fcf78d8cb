// The bfloat16 GEMM (kernels/cpu/bf16gemm_avx512.h: AVX-512 BF16 where the CPU has it, else
// its operands widened for the float GEMM) against a float64 triple loop over the same
// bfloat16 inputs, rounded to bfloat16 at the end: odd shapes that leave partial tiles and
// k-pairs, both storage orders, alpha/beta, a k deeper than one cache block, two threads. Then matmul on the 16-bit floats and the narrow integers (the GEMM, or
// products in the compute dtype): values, dtypes, gradients.
#include "test_helpers.h"

#include <ember/kernels/cpu/bf16gemm_avx512.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

using namespace ember;

namespace {

struct Bf16Operand {
  int64_t rows, cols, ld;
  bool col_major;
  std::vector<BFloat16> data;

  // Values in [0, 1): no cancellation, so the result's relative error is the rounding's.
  // `pad` unused elements after each row (column): an odd pad makes an odd leading
  // dimension, which the packing cannot read as 32-bit k-pairs.
  Bf16Operand(int64_t r, int64_t c, bool cm, int64_t pad, std::mt19937& gen)
      : rows(r), cols(c), ld(std::max<int64_t>(1, cm ? r : c) + pad), col_major(cm) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    data.resize(static_cast<size_t>(ld * (cm ? c : r)));
    for (auto& v : data) v = BFloat16(u(gen));
  }
  double at(int64_t i, int64_t j) const {
    return static_cast<float>(data[static_cast<size_t>(col_major ? i + j * ld : i * ld + j)]);
  }
  cpu::MatrixRef<BFloat16> ref() const { return {data.data(), ld, col_major}; }
};

// c = alpha * a @ b + beta * c against the float64 loop; `roundings`: how many times the
// kernel may round a partial sum (1, or one per cache block of k).
void check_product(int64_t m, int64_t n, int64_t k, bool a_cm, bool b_cm, float alpha, float beta,
                   int roundings, std::mt19937& gen, int64_t pad = 3) {
  INFO("m " << m << " n " << n << " k " << k << " a col-major " << a_cm << " b col-major " << b_cm
            << " alpha " << alpha << " beta " << beta << " pad " << pad);
  const Bf16Operand a(m, k, a_cm, pad, gen), b(k, n, b_cm, pad, gen);
  const Bf16Operand c0(m, n, false, 1, gen);
  std::vector<BFloat16> c(c0.data);
  cpu::bf16gemm(m, n, k, alpha, a.ref(), b.ref(), beta, c.data(), c0.ld);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = beta * c0.at(i, j);
      for (int64_t p = 0; p < k; ++p) want += alpha * a.at(i, p) * b.at(p, j);
      const double got = static_cast<float>(c[static_cast<size_t>(i * c0.ld + j)]);
      // bfloat16 keeps 8 significant bits: each rounding is within 2^-8 relative.
      REQUIRE(std::abs(got - want) <= roundings * std::ldexp(std::abs(want), -8) * 1.01 + 1e-30);
    }
}

}  // namespace

TEST_CASE("bf16gemm equals a float64 loop over its bfloat16 inputs, rounded once", "[gemm]") {
  std::mt19937 gen(5);
  for (int64_t m : {1, 13, 14, 15, 29})
    for (int64_t n : {1, 17, 32, 33, 40})
      for (int64_t k : {1, 2, 7, 64})
        for (bool a_cm : {false, true})
          for (bool b_cm : {false, true})
            for (int64_t pad : {2, 3}) check_product(m, n, k, a_cm, b_cm, 1.0f, 0.0f, 1, gen, pad);
  check_product(30, 70, 33, false, true, 0.5f, 2.0f, 1, gen);
  // Deeper than one cache block (768): the first block's sum is rounded, then added to.
  check_product(20, 40, 1601, true, false, 1.0f, 0.0f, 3, gen);
  check_product(20, 40, 1601, false, true, 1.0f, 0.0f, 3, gen, 2);  // words, then a tail pair
  set_num_threads(2);
  check_product(300, 200, 100, false, false, 1.0f, 0.0f, 1, gen);
  set_num_threads(1);
  check_product(300, 200, 100, false, false, 1.0f, 0.0f, 1, gen);
}

// Fewer than 16 columns and 32 rows or more (a Linear layer with a handful of outputs: its
// forward x @ w^T, its weight gradient x^T @ gy) run transposed, c^T = b^T @ a^T, and come
// back through an in-register transpose: rows in blocks of 16 with a partial last one, 4096
// rows of c per pass.
TEST_CASE("bf16gemm's few-column products equal a float64 loop, rounded once", "[gemm]") {
  std::mt19937 gen(9);
  for (int64_t m : {32, 50, 301})
    for (int64_t n : {1, 10, 15})
      for (int64_t k : {1, 7, 64})
        for (bool a_cm : {false, true})
          for (bool b_cm : {false, true}) {
            check_product(m, n, k, a_cm, b_cm, 1.0f, 0.0f, 1, gen);
            check_product(m, n, k, a_cm, b_cm, 0.5f, 2.0f, 1, gen, 2);
          }
  const int threads_before = get_num_threads();
  set_num_threads(2);
  check_product(2048, 10, 64, true, false, 1.0f, 0.0f, 1, gen, 0);  // x^T @ gy, both threads
  check_product(64, 10, 2048, false, true, 1.0f, 1.0f, 3, gen, 0);  // x @ w^T + bias
  // More rows than one pass of the buffer takes (4096): two passes, the second partial.
  check_product(4100, 3, 20, false, false, 1.0f, 0.5f, 1, gen);
  check_product(4100, 3, 20, true, true, 1.0f, 0.0f, 1, gen);
  set_num_threads(threads_before);
}

// A float32 c (a convolution's sums over the chunks of a batch): stored without rounding, so
// the error is float32 summation's, (k + 1) * 2^-24 of the sum (inputs in [0, 1), no
// cancellation), far inside one bfloat16 rounding (2^-8); beta 1 adds to what c holds.
TEST_CASE("bf16gemm into float32: float32 sums, never rounded to bfloat16", "[gemm]") {
  std::mt19937 gen(6);
  // {40, 9, 100}: a few-column product, computed transposed.
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{13, 33, 7}, {29, 40, 1601}, {1, 17, 64},
                                {40, 9, 100}}) {
    INFO("m " << m << " n " << n << " k " << k);
    const Bf16Operand a(m, k, false, 2, gen), b(k, n, true, 2, gen);
    std::vector<float> c(static_cast<size_t>(m * n), 0.5f);
    cpu::bf16gemm(m, n, k, 1.0f, a.ref(), b.ref(), 1.0f, c.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0.5;
        for (int64_t p = 0; p < k; ++p) want += a.at(i, p) * b.at(p, j);
        REQUIRE(std::abs(c[static_cast<size_t>(i * n + j)] - want) <=
                double(k + 1) * std::ldexp(want, -24));
      }
  }
}

TEST_CASE("bf16gemm with beta = 0 never reads c, NaN stays NaN in the rounding", "[gemm]") {
  std::vector<BFloat16> a(4 * 2, BFloat16(1.0f)), b(2 * 16, BFloat16(2.0f));
  a[0] = BFloat16(std::nanf(""));
  std::vector<BFloat16> c(4 * 16, BFloat16(std::nanf("")));
  cpu::bf16gemm(4, 16, 2, 1.0f, {a.data(), 2, false}, {b.data(), 16, false}, 0.0f, c.data(), 16);
  CHECK(std::isnan(static_cast<float>(c[0])));
  for (size_t i = 16; i < c.size(); ++i) REQUIRE(static_cast<float>(c[i]) == 4.0f);
}

TEST_CASE("matmul on bfloat16, float16 and the narrow integers", "[gemm][dtype]") {
  manual_seed(11);
  const Tensor a = rand({37, 50}), b = rand({50, 45});
  for (ScalarType t : {kBFloat16, kHalf}) {
    INFO(t);
    const Tensor a16 = a.to(t), b16 = b.to(t);
    const Tensor product = a16.matmul(b16);
    CHECK(product.scalar_type() == t);
    // The float32 product of the same rounded inputs, rounded once: equal up to the order of
    // the float32 sums (a last-bit difference where a sum sits on a rounding boundary).
    const Tensor want = a16.to(kFloat).matmul(b16.to(kFloat));
    CHECK((product.to(kFloat) - want).abs().max().item<double>() <=
          std::ldexp(want.abs().max().item<double>(), t == kBFloat16 ? -7 : -10));
    // A transposed operand, a batch, addmm.
    CHECK((a16.t().contiguous().t().matmul(b16.t().contiguous().t()).to(kFloat) - want)
              .abs().max().item<double>() <= std::ldexp(want.abs().max().item<double>(), -7));
    const Tensor batched = stack({a16, a16}).bmm(stack({b16, b16}));
    CHECK(batched.scalar_type() == t);
    CHECK(equal(batched[0], batched[1]));
  }
  // Integers: exact, then wrapped to the dtype (int8 products overflow and wrap as int8 does).
  const Tensor ia = randint(-9, 10, {6, 7}), ib = randint(-9, 10, {7, 5});
  for (ScalarType t : {kByte, kChar, kShort, kInt}) {
    INFO(t);
    const Tensor product = ia.to(t).matmul(ib.to(t));
    CHECK(product.scalar_type() == t);
    CHECK(equal(product.to(kLong), ia.to(t).to(kLong).matmul(ib.to(t).to(kLong)).to(t).to(kLong)));
  }
}

TEST_CASE("a bfloat16 linear layer trains: gradients in bfloat16 close to float32's", "[gemm][dtype]") {
  manual_seed(3);
  const Tensor x = rand({64, 40}), w = rand({30, 40}) - 0.5;
  const Tensor x16 = x.to(kBFloat16), w16 = w.to(kBFloat16).requires_grad_();
  const Tensor w32 = w16.detach().to(kFloat).requires_grad_();
  (x16.matmul(w16.t())).square().sum().backward();
  (x16.to(kFloat).matmul(w32.t())).square().sum().backward();
  REQUIRE(w16.grad().scalar_type() == kBFloat16);
  const double scale = w32.grad().abs().max().item<double>();
  CHECK((w16.grad().to(kFloat) - w32.grad()).abs().max().item<double>() <= scale * 0.02);
}
