#pragma once
// Matrix products on the CPU: float products of more than a few tiles go to the packed
// AVX-512 kernel (sgemm_avx512.h) when the build has AVX-512, and those of a few columns with
// both operands read along k to its narrow kernel; builds with AVX2 and FMA but no AVX-512
// send the large ones to the packed AVX2 kernel (sgemm_avx2.h); everything else to Eigen's
// GEMM (row-major maps over ember's memory, no copies). Threads: up to
// ember::get_num_threads(); inside a parallel region a call runs single-threaded.
#include <cstdint>

namespace ember::cpu {

// A strided (rows, cols) matrix operand. Element (i, j) is at
// data[i * ld + j] (row-major), or data[i + j * ld] when col_major: a
// transposed view of a row-major matrix is col_major, so it needs no copy.
template <typename T>
struct MatrixRef {
  const T* data;
  int64_t ld;
  bool col_major;
};

// c (m, n, row-major, leading dimension ldc) = alpha * a (m, k) @ b (k, n) + beta * c.
// With beta == 0, c is not read (it may hold garbage); with k == 0 the product is zero.
// Instantiated for float, double and int64_t.
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, T alpha, MatrixRef<T> a, MatrixRef<T> b, T beta, T* c,
          int64_t ldc);

// sum_i x[i * incx] * y[i * incy]
template <typename T>
T dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy);

}  // namespace ember::cpu
