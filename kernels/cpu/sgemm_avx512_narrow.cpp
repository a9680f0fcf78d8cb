// Products with a handful of columns whose a rows and b columns both run along k (a
// row-major, b column-major): a Linear layer's forward, x (batch, in) @ w^T with w (out, in)
// for a few outputs. The packed kernel would pad its 32-column tiles with zeros, and Eigen
// reached 29 GFLOP/s on the sample model's classifier (64 x 2048 @ 2048 x 10); here each
// output is a dot product, two rows of a against every column of b at once, so a is read
// once and the columns of b stay in L1/L2.
#include "ember/kernels/cpu/sgemm_avx512.h"

#include "ember/core/error.h"

#if defined(__AVX512F__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "ember/core/parallel.h"
#endif

namespace ember::cpu {

#if defined(__AVX512F__)
namespace {

constexpr int kRows = 2;  // rows of a per pass: kRows * N accumulators (24 at most)

// c rows [i0, i0 + rows) (rows <= kRows) x N columns = alpha * a @ b + beta * c.
template <int N>
void narrow_rows(int64_t rows, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  __m512 acc[kRows][N];
#pragma GCC unroll 2
  for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 12
    for (int j = 0; j < N; ++j) acc[i][j] = _mm512_setzero_ps();
  const float* a1 = a + (rows > 1 ? lda : 0);  // a lone last row reads its own row twice
  for (int64_t p = 0; p < k; p += 16) {
    const __mmask16 lanes = k - p >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (k - p)) - 1);
    const __m512 x0 = _mm512_maskz_loadu_ps(lanes, a + p);
    const __m512 x1 = _mm512_maskz_loadu_ps(lanes, a1 + p);
#pragma GCC unroll 12
    for (int j = 0; j < N; ++j) {
      const __m512 y = _mm512_maskz_loadu_ps(lanes, b + j * ldb + p);
      acc[0][j] = _mm512_fmadd_ps(x0, y, acc[0][j]);
      acc[1][j] = _mm512_fmadd_ps(x1, y, acc[1][j]);
    }
  }
  // Constant indices only: a runtime row index would make GCC keep acc in memory.
#pragma GCC unroll 2
  for (int i = 0; i < kRows; ++i) {
    if (i >= rows) break;
#pragma GCC unroll 12
    for (int j = 0; j < N; ++j) {
      const float sum = alpha * _mm512_reduce_add_ps(acc[i][j]);
      float& out = c[i * ldc + j];
      out = beta == 0.0f ? sum : sum + beta * out;
    }
  }
}

using NarrowKernel = void (*)(int64_t, int64_t, float, const float*, int64_t, const float*,
                              int64_t, float, float*, int64_t);
template <int... N>
constexpr auto make_kernels(std::integer_sequence<int, N...>) {
  return std::array<NarrowKernel, sizeof...(N)>{&narrow_rows<N + 1>...};
}
// kKernels[n - 1] handles n columns.
constexpr auto kKernels = make_kernels(std::make_integer_sequence<int, kNarrowMaxColumns>{});

}  // namespace

bool sgemm_avx512_narrow_applies(int64_t m, int64_t n, int64_t k, MatrixRef<float> a,
                                 MatrixRef<float> b) {
  return n >= 1 && n <= kNarrowMaxColumns && k >= 64 && m >= 1 && !a.col_major && b.col_major;
}

void sgemm_avx512_narrow(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                         MatrixRef<float> b, float beta, float* c, int64_t ldc) {
  EMBER_CHECK(sgemm_avx512_narrow_applies(m, n, k, a, b), "matmul: the narrow float kernel got a ",
              m, "x", k, " @ ", k, "x", n, " product it does not handle");
  const NarrowKernel kernel = kKernels[n - 1];
  const int64_t pairs = (m + kRows - 1) / kRows;
  const auto run = [&](int64_t begin, int64_t end) {
    for (int64_t q = begin; q < end; ++q) {
      const int64_t i = q * kRows;
      kernel(std::min<int64_t>(kRows, m - i), k, alpha, a.data + i * a.ld, a.ld, b.data, b.ld,
             beta, c + i * ldc, ldc);
    }
  };
  // About a million multiply-adds per thread before a second one pays for waking up.
  parallel_for(0, pairs, std::max<int64_t>(1, (int64_t(1) << 20) / (kRows * n * k)), run);
}

#else  // no AVX-512 in this build: cpu::gemm keeps Eigen

bool sgemm_avx512_narrow_applies(int64_t, int64_t, int64_t, MatrixRef<float>,
                                 MatrixRef<float>) {
  return false;
}

void sgemm_avx512_narrow(int64_t, int64_t, int64_t, float, MatrixRef<float>, MatrixRef<float>,
                         float, float*, int64_t) {
  EMBER_ERROR("matmul: this build has no AVX-512 float GEMM (compile with -mavx512f)");
}

#endif

}  // namespace ember::cpu
