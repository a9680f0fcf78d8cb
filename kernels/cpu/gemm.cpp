#include "ember/kernels/cpu/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/sgemm_avx2.h"
#include "ember/kernels/cpu/sgemm_avx512.h"

// GCC 12 reports false "(may be) used uninitialized" warnings inside the
// AVX-512 intrinsics that Eigen's GEMM kernels inline (-Wuninitialized at -O1,
// the sanitizer build).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <Eigen/Core>

namespace ember::cpu {
namespace {

template <typename T, int Order>
using ConstMatrixMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned,
               Eigen::OuterStride<>>;
template <typename T>
using OutMatrixMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                                Eigen::Unaligned, Eigen::OuterStride<>>;

// One instantiation per storage order of a and b, so Eigen packs each
// operand straight from its own layout.
template <typename T, int OrderA, int OrderB>
void gemm_maps(int64_t m, int64_t n, int64_t k, T alpha, MatrixRef<T> a, MatrixRef<T> b, T beta,
               OutMatrixMap<T>& c) {
  ConstMatrixMap<T, OrderA> A(a.data, m, k, Eigen::OuterStride<>(a.ld));
  ConstMatrixMap<T, OrderB> B(b.data, k, n, Eigen::OuterStride<>(b.ld));
  if (beta == T(0)) {
    c.noalias() = alpha * A * B;
    return;
  }
  if (beta != T(1)) c *= beta;
  c.noalias() += alpha * A * B;
}

// c = alpha * a @ b + beta * c for a's m rows, in the storage orders of a and b.
template <typename T>
void gemm_rows(int64_t m, int64_t n, int64_t k, T alpha, MatrixRef<T> a, MatrixRef<T> b, T beta,
               OutMatrixMap<T>& c) {
  constexpr int R = Eigen::RowMajor, Col = Eigen::ColMajor;
  if (!a.col_major && !b.col_major) gemm_maps<T, R, R>(m, n, k, alpha, a, b, beta, c);
  else if (!a.col_major) gemm_maps<T, R, Col>(m, n, k, alpha, a, b, beta, c);
  else if (!b.col_major) gemm_maps<T, Col, R>(m, n, k, alpha, a, b, beta, c);
  else gemm_maps<T, Col, Col>(m, n, k, alpha, a, b, beta, c);
}

}  // namespace

template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, T alpha, MatrixRef<T> a, MatrixRef<T> b, T beta, T* c,
          int64_t ldc) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (sgemm_avx512_pays(m, n, k)) return sgemm_avx512(m, n, k, alpha, a, b, beta, c, ldc);
    if (sgemm_avx512_narrow_applies(m, n, k, a, b))
      return sgemm_avx512_narrow(m, n, k, alpha, a, b, beta, c, ldc);
    if (sgemm_avx512_pays_transposed(m, n, k))
      return sgemm_avx512_transposed(m, n, k, alpha, a, b, beta, c, ldc);
    // CPUs without AVX-512: the AVX2 kernel where it beats Eigen.
    if (!sgemm_avx512_available() && sgemm_avx2_pays(m, n, k))
      return sgemm_avx2(m, n, k, alpha, a, b, beta, c, ldc);
  }
  OutMatrixMap<T> C(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {  // an empty sum: alpha * 0 + beta * c
    if (beta == T(0)) C.setZero();
    else C *= beta;
    return;
  }
  // Eigen is built single-threaded (EIGEN_DONT_PARALLELIZE: its OpenMP split
  // waits at a barrier for a descheduled thread); a large product splits c's
  // rows over ember's pool instead, about 1 MFLOP per chunk at least. (At 4, the
  // sample model's classifier, 64 x 2048 x 10 in each of its three products, ran
  // on one thread: its 2-thread step 7.9 ms against 8.1, three alternating runs.)
  const int64_t parts = std::min<int64_t>(
      {get_num_threads(), std::max<int64_t>(1, m * n * k / (int64_t(1) << 19)), (m + 7) / 8});
  const int64_t rows_per = (m + parts - 1) / parts;
  parallel_for(0, m, rows_per, [&](int64_t r0, int64_t r1) {
    const MatrixRef<T> a_rows{a.col_major ? a.data + r0 : a.data + r0 * a.ld, a.ld, a.col_major};
    OutMatrixMap<T> c_rows(c + r0 * ldc, r1 - r0, n, Eigen::OuterStride<>(ldc));
    gemm_rows(r1 - r0, n, k, alpha, a_rows, b, beta, c_rows);
  });
}

template <typename T>
T dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if (n == 0) return T(0);
  if (incx == 1 && incy == 1) {  // compile-time unit strides let Eigen vectorize
    using Dense = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
    return Dense(x, n).dot(Dense(y, n));
  }
  using Vec =
      Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned, Eigen::InnerStride<>>;
  return Vec(x, n, Eigen::InnerStride<>(incx)).dot(Vec(y, n, Eigen::InnerStride<>(incy)));
}

#define EMBER_INSTANTIATE_GEMM(T)                                                              \
  template void gemm<T>(int64_t, int64_t, int64_t, T, MatrixRef<T>, MatrixRef<T>, T, T*, int64_t); \
  template T dot<T>(int64_t, const T*, int64_t, const T*, int64_t);
EMBER_INSTANTIATE_GEMM(float)
EMBER_INSTANTIATE_GEMM(double)
EMBER_INSTANTIATE_GEMM(int64_t)
#undef EMBER_INSTANTIATE_GEMM

}  // namespace ember::cpu
