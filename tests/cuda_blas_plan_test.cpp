// The device-independent half of the CUDA matrix products, checked on the CPU:
// which operand layouts are read in place (gemm_layout, shared with the CPU
// GEMM), the column-major cuBLAS call a row-major product becomes
// (plan_blas_gemm), run here by a column-major reference GEMM written in this
// file with BLAS's semantics, and the compute type TF32 selects. With a device,
// tests/cuda/matmul_test.cpp checks cuBLAS itself against the CPU.
#include <catch2/catch.hpp>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/core/ops/linalg/matmul.h>
#include <ember/kernels/common/gemm_operand.h>
#include <ember/kernels/common/cuda_plans/blas_plan.h>

#include <limits>
#include <optional>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using cuda::BlasCompute;
using cuda::BlasGemmPlan;
using cuda::BlasOp;

namespace {

std::optional<GemmLayout> layout_of(const Tensor& t) {
  return gemm_layout(t.size(-2), t.size(-1), t.stride(-2), t.stride(-1));
}

// What cuBLAS computes for `p` (its documented column-major semantics), in
// float64: C_i = alpha * op_a(A_i) @ op_b(B_i) + beta * C_i, C_i (m, n) at
// c + i * stride_c with leading dimension ldc.
void column_major_gemm(const BlasGemmPlan& p, const double* a, const double* b, double* c,
                       double alpha, double beta) {
  for (int64_t bi = 0; bi < p.batch; ++bi) {
    const double* A = a + bi * p.stride_a;
    const double* B = b + bi * p.stride_b;
    double* C = c + bi * p.stride_c;
    for (int64_t j = 0; j < p.n; ++j) {
      for (int64_t i = 0; i < p.m; ++i) {
        double s = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          const double x = p.op_a == BlasOp::kN ? A[i + q * p.lda] : A[q + i * p.lda];
          const double y = p.op_b == BlasOp::kN ? B[q + j * p.ldb] : B[j + q * p.ldb];
          s += x * y;
        }
        C[i + j * p.ldc] = alpha * s + (beta == 0 ? 0 : beta * C[i + j * p.ldc]);
      }
    }
  }
}

// a (B, n, k) or (n, k) @ b (B, k, m) or (k, m) the way matmul.cpp hands the
// product to cuBLAS (in place when gemm_layout allows, else a contiguous copy),
// run by column_major_gemm into a contiguous row-major result.
Tensor product_through_plan(const Tensor& a, const Tensor& b, int64_t batch) {
  auto operand = [](const Tensor& t, Tensor& keep) {
    if (auto l = layout_of(t)) {
      keep = t;
      return std::make_pair(*l, t.dim() == 3 ? t.stride(0) : int64_t(0));
    }
    keep = t.contiguous();
    return std::make_pair(GemmLayout{std::max<int64_t>(t.size(-1), 1), false},
                          t.dim() == 3 ? t.size(-2) * t.size(-1) : int64_t(0));
  };
  Tensor ka, kb;
  const auto [la, sa] = operand(a, ka);
  const auto [lb, sb] = operand(b, kb);
  const int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
  Tensor out = full({batch, n, m}, 7.0, kDouble);  // beta = 0 must not read it
  const BlasGemmPlan p = cuda::plan_blas_gemm(batch, n, m, k, la, sa, lb, sb);
  // The plan's A is ember's b, its B ember's a.
  column_major_gemm(p, kb.data_ptr<double>(), ka.data_ptr<double>(), out.data_ptr<double>(),
                    1.0, 0.0);
  return out;
}

// The float64 row-major triple loop the plan must agree with.
std::vector<double> naive_product(const Tensor& a3, const Tensor& b3) {
  const std::vector<double> a = ember_test::values(a3), b = ember_test::values(b3);
  const int64_t batch = a3.size(0), n = a3.size(1), k = a3.size(2), m = b3.size(2);
  std::vector<double> out;
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) s += a[(bi * n + i) * k + q] * b[(bi * k + q) * m + j];
        out.push_back(s);
      }
  return out;
}

}  // namespace

TEST_CASE("gemm_layout reads contiguous, transposed and sliced matrices in place",
          "[cuda_blas]") {
  const Tensor x = empty({6, 8}, kDouble);
  SECTION("contiguous: row-major with ld = cols") {
    const auto l = layout_of(x);
    REQUIRE(l);
    CHECK(!l->col_major);
    CHECK(l->ld == 8);
  }
  SECTION("transposed: col_major with the original row length as ld") {
    const auto l = layout_of(x.t());
    REQUIRE(l);
    CHECK(l->col_major);
    CHECK(l->ld == 8);
  }
  SECTION("a column slice keeps the full row length as ld") {
    const auto l = layout_of(x.narrow(1, 2, 3));
    REQUIRE(l);
    CHECK(!l->col_major);
    CHECK(l->ld == 8);
  }
  SECTION("every other row: row-major with ld = 2 * cols") {
    const auto l = layout_of(x.slice(0, 0, 6, 2));
    REQUIRE(l);
    CHECK(!l->col_major);
    CHECK(l->ld == 16);
  }
  SECTION("no unit stride in either dim needs a copy") {
    CHECK(!layout_of(x.slice(1, 0, 8, 2)));
    CHECK(!layout_of(x.t().slice(0, 0, 8, 2)));  // (4, 6) with strides (2, 8)
  }
  SECTION("an expanded dim (stride 0) with more than one element needs a copy") {
    CHECK(!layout_of(empty({6, 1}, kDouble).expand({6, 5})));
  }
}

TEST_CASE("gemm_layout ignores the strides of size-1 dims and keeps ld >= 1", "[cuda_blas]") {
  // One row of a strided vector (a 1-d slice unsqueezed): read column-major.
  const Tensor v = empty({10}, kDouble).slice(0, 0, 10, 5).unsqueeze(0);  // (1, 2), stride 5
  auto l = layout_of(v);
  REQUIRE(l);
  CHECK(l->col_major);
  CHECK(l->ld == 5);
  // One column of a wide matrix: row-major with the row length as ld.
  l = layout_of(empty({4, 9}, kDouble).narrow(1, 3, 1));
  REQUIRE(l);
  CHECK(!l->col_major);
  CHECK(l->ld == 9);
  // A single element, and an empty matrix: ld never drops to 0.
  l = layout_of(empty({1, 1}, kDouble));
  REQUIRE(l);
  CHECK(l->ld == 1);
  l = layout_of(empty({0, 0}, kDouble));
  REQUIRE(l);
  CHECK(l->ld == 1);
}

TEST_CASE("plan_blas_gemm computes C^T = B^T A^T with ember's b as cuBLAS's first operand",
          "[cuda_blas]") {
  // a (3, 4) row-major, b (4, 5) col_major (a transposed view with ld 9).
  const BlasGemmPlan p =
      cuda::plan_blas_gemm(2, 3, 5, 4, GemmLayout{4, false}, 12, GemmLayout{9, true}, 0);
  CHECK(p.op_a == BlasOp::kT);  // ember's b is col_major
  CHECK(p.op_b == BlasOp::kN);  // ember's a is row-major
  CHECK(p.m == 5);
  CHECK(p.n == 3);
  CHECK(p.k == 4);
  CHECK(p.lda == 9);
  CHECK(p.ldb == 4);
  CHECK(p.ldc == 5);
  CHECK(p.stride_a == 0);  // b is shared by the batch
  CHECK(p.stride_b == 12);
  CHECK(p.stride_c == 15);
  CHECK(p.batch == 2);
  CHECK(cuda::fits_blas_int(p));
}

TEST_CASE("the cuBLAS plan, run column-major, equals the row-major product for every layout",
          "[cuda_blas]") {
  manual_seed(3);
  struct Case {
    const char* name;
    Tensor a, b;  // 3-d operands (batch first)
  };
  const Tensor base_a = randn({2, 7, 9}, kDouble), base_b = randn({2, 9, 5}, kDouble);
  const std::vector<Case> cases = {
      {"contiguous", base_a, base_b},
      {"a transposed", randn({2, 9, 7}, kDouble).transpose(1, 2), base_b},
      {"b transposed", base_a, randn({2, 5, 9}, kDouble).transpose(1, 2)},
      {"both transposed", randn({2, 9, 7}, kDouble).transpose(1, 2),
       randn({2, 5, 9}, kDouble).transpose(1, 2)},
      {"column slices", randn({2, 7, 12}, kDouble).narrow(2, 1, 9),
       randn({2, 9, 8}, kDouble).narrow(2, 2, 5)},
      {"row slices of transposed", randn({2, 12, 7}, kDouble).narrow(1, 3, 9).transpose(1, 2),
       base_b},
      {"every other column (copied)", randn({2, 7, 18}, kDouble).slice(2, 0, 18, 2), base_b},
      {"expanded batch (stride 0)", randn({1, 7, 9}, kDouble).expand({2, 7, 9}), base_b},
      {"expanded transposed b", base_a,
       randn({1, 5, 9}, kDouble).transpose(1, 2).expand({2, 9, 5})},
      {"single row and column", randn({2, 1, 9}, kDouble), randn({2, 9, 1}, kDouble)},
      {"odd sizes, b transposed", randn({2, 31, 33}, kDouble),
       randn({2, 17, 33}, kDouble).transpose(1, 2)},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Tensor got = product_through_plan(c.a, c.b, 2);
    ember_test::require_values(got, naive_product(c.a, c.b), 1e-12);
  }
}

TEST_CASE("the cuBLAS plan of a 2-d product is one unbatched call", "[cuda_blas]") {
  const Tensor a = randn({6, 4}, kDouble).t(), b = randn({6, 3}, kDouble);  // (4, 6) @ (6, 3)
  const BlasGemmPlan p = cuda::plan_blas_gemm(1, 4, 3, 6, *layout_of(a), 0, *layout_of(b), 0);
  CHECK(p.batch == 1);
  CHECK(p.op_a == BlasOp::kN);  // b row-major
  CHECK(p.op_b == BlasOp::kT);  // a a transposed view
  Tensor out = empty({4, 3}, kDouble);
  column_major_gemm(p, b.data_ptr<double>(), a.data_ptr<double>(), out.data_ptr<double>(), 1, 0);
  ember_test::require_values(out, naive_product(a.unsqueeze(0), b.unsqueeze(0)), 1e-12);
}

TEST_CASE("a plan with a dim past INT_MAX does not fit cuBLAS's int arguments", "[cuda_blas]") {
  const int64_t big = int64_t(std::numeric_limits<int>::max()) + 1;
  CHECK(!cuda::fits_blas_int(cuda::plan_blas_gemm(1, 1, big, 1, GemmLayout{1, false}, 0,
                                                   GemmLayout{big, false}, 0)));
  CHECK(!cuda::fits_blas_int(cuda::plan_blas_gemm(1, 2, 2, 2, GemmLayout{big, false}, 0,
                                                  GemmLayout{2, false}, 0)));
}

TEST_CASE("blas_compute: TF32 only for float32 when allowed, float64 exact, 16-bit floats in "
          "float32, int64 refused",
          "[cuda_blas]") {
  CHECK(cuda::blas_compute("mm", kFloat, false) == BlasCompute::k32F);
  CHECK(cuda::blas_compute("mm", kBFloat16, true) == BlasCompute::k32F);
  CHECK(cuda::blas_compute("mm", kHalf, true) == BlasCompute::k32F);
  CHECK(cuda::blas_compute("mm", kFloat, true) == BlasCompute::k32FFastTF32);
  CHECK(cuda::blas_compute("mm", kDouble, true) == BlasCompute::k64F);
  CHECK(cuda::blas_compute("mm", kDouble, false) == BlasCompute::k64F);
  REQUIRE_THROWS_WITH(cuda::blas_compute("bmm", kLong, false),
                      Catch::Contains("bmm: int64 matrices are not supported on CUDA"));
}
