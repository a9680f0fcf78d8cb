#include "ember/kernels/cpu/linalg_spectral.h"

// GCC 12's false "(may be) used uninitialized" warnings inside Eigen's AVX-512
// intrinsics, as kernels/cpu/gemm.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <Eigen/Eigenvalues>
#include <Eigen/Householder>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <atomic>
#include <cmath>

#include "ember/core/dtype.h"
#include "ember/core/parallel.h"

namespace ember::cpu {

namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatMap = Eigen::Map<Mat<T>>;
template <typename T>
using ConstMatMap = Eigen::Map<const Mat<T>>;
template <typename T>
using VecMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

// Row `b` of a contiguous (batch, rows, cols) tensor as a matrix; null data
// (an undefined tensor) gives an empty map.
template <typename T>
MatMap<T> matrix(const Tensor& t, int64_t b, int64_t rows, int64_t cols) {
  T* base = t.defined() ? t.data_ptr<T>() : nullptr;
  return MatMap<T>(base ? base + b * rows * cols : nullptr, base ? rows : 0, base ? cols : 0);
}

// Negates column j of m when its largest-magnitude entry is negative
// (Note [Decomposition signs]); returns whether it did.
template <typename Derived>
bool make_column_positive(Eigen::MatrixBase<Derived>& m, Eigen::Index j) {
  Eigen::Index at = 0;
  if (m.rows() == 0) return false;
  m.col(j).cwiseAbs().maxCoeff(&at);  // the first of equal maxima
  if (m(at, j) >= 0) return false;
  m.col(j) = -m.col(j);
  return true;
}

// Runs f(b) for each matrix of the batch in parallel; false if any returned false.
template <typename F>
bool for_each_matrix(int64_t batch, const F& f) {
  std::atomic<bool> ok{true};
  parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      if (!f(b)) ok = false;
  });
  return ok;
}

template <typename T>
bool eigh_impl(const Tensor& a, bool upper, const Tensor& values, const Tensor& vectors) {
  const int64_t batch = a.size(0), n = a.size(1);
  const T* in = a.data_ptr<T>();
  return for_each_matrix(batch, [&](int64_t b) {
    const ConstMatMap<T> m(in + b * n * n, n, n);
    if (!m.allFinite()) return false;
    if (n == 0) return true;
    // Eigen reads the lower triangle; the upper one of m is the lower one of m^T.
    const Mat<T> lower = upper ? Mat<T>(m.transpose()) : Mat<T>(m);
    const int opts = vectors.defined() ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly;
    Eigen::SelfAdjointEigenSolver<Mat<T>> solver(lower, opts);
    if (solver.info() != Eigen::Success) return false;
    VecMap<T>(values.data_ptr<T>() + b * n, n) = solver.eigenvalues();
    if (vectors.defined()) {
      MatMap<T> v = matrix<T>(vectors, b, n, n);
      v = solver.eigenvectors();
      for (int64_t j = 0; j < n; ++j) make_column_positive(v, j);
    }
    return true;
  });
}

template <typename T>
bool svd_impl(const Tensor& a, bool full, const Tensor& u_out, const Tensor& s_out,
              const Tensor& vh_out) {
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2), k = std::min(m, n);
  const bool vectors = u_out.defined();
  const T* in = a.data_ptr<T>();
  const int opts = !vectors ? 0
                   : full   ? Eigen::ComputeFullU | Eigen::ComputeFullV
                            : Eigen::ComputeThinU | Eigen::ComputeThinV;
  return for_each_matrix(batch, [&](int64_t b) {
    const ConstMatMap<T> x(in + b * m * n, m, n);
    if (!x.allFinite()) return false;
    if (k == 0) {  // no singular values; any orthonormal basis will do
      if (vectors) {
        matrix<T>(u_out, b, m, full ? m : k).setIdentity();
        matrix<T>(vh_out, b, full ? n : k, n).setIdentity();
      }
      return true;
    }
    // Column-major: Eigen's thin U and V need a dynamic column-major matrix.
    Eigen::JacobiSVD<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> solver(x, opts);
    VecMap<T>(s_out.data_ptr<T>() + b * k, k) = solver.singularValues();
    if (!vectors) return true;
    MatMap<T> u = matrix<T>(u_out, b, m, full ? m : k);
    Mat<T> v = solver.matrixV();  // (n, n) or (n, k)
    u = solver.matrixU();
    for (int64_t j = 0; j < u.cols(); ++j)
      if (make_column_positive(u, j) && j < k) v.col(j) = -v.col(j);
    for (int64_t j = k; j < v.cols(); ++j) make_column_positive(v, j);
    matrix<T>(vh_out, b, full ? n : k, n) = v.transpose();
    return true;
  });
}

template <typename T>
bool qr_impl(const Tensor& a, bool complete, const Tensor& q_out, const Tensor& r_out) {
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2), k = std::min(m, n);
  const int64_t r_rows = complete ? m : k, q_cols = complete ? m : k;
  const T* in = a.data_ptr<T>();
  return for_each_matrix(batch, [&](int64_t b) {
    const ConstMatMap<T> x(in + b * m * n, m, n);
    if (!x.allFinite()) return false;
    if (k == 0) {
      matrix<T>(r_out, b, r_rows, n).setZero();
      matrix<T>(q_out, b, m, q_cols).setIdentity();
      return true;
    }
    Eigen::HouseholderQR<Mat<T>> solver(x);
    MatMap<T> r = matrix<T>(r_out, b, r_rows, n);
    r.setZero();
    r.topRows(k) = solver.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    Mat<T> q;
    if (q_out.defined()) q = solver.householderQ() * Mat<T>::Identity(m, q_cols);
    for (int64_t i = 0; i < k; ++i) {
      if (r(i, i) >= 0) continue;
      r.row(i) = -r.row(i);
      if (q_out.defined()) q.col(i) = -q.col(i);
    }
    if (q_out.defined()) matrix<T>(q_out, b, m, q_cols) = q;
    return true;
  });
}

template <typename T>
void triangular_inverse_impl(const Tensor& r_in, const Tensor& out) {
  const int64_t batch = r_in.size(0), n = r_in.size(1);
  const T* in = r_in.data_ptr<T>();
  parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const ConstMatMap<T> r(in + b * n * n, n, n);
      matrix<T>(out, b, n, n) = r.template triangularView<Eigen::Upper>().solve(Mat<T>::Identity(n, n));
    }
  });
}

}  // namespace

bool eigh(const Tensor& a, bool upper, const Tensor& values, const Tensor& vectors) {
  return dispatch_floating(a.scalar_type(), "linalg.eigh", [&]<typename T>() {
    return eigh_impl<T>(a, upper, values, vectors);
  });
}

bool svd(const Tensor& a, bool full, const Tensor& u, const Tensor& s, const Tensor& vh) {
  return dispatch_floating(a.scalar_type(), "linalg.svd", [&]<typename T>() {
    return svd_impl<T>(a, full, u, s, vh);
  });
}

bool qr(const Tensor& a, bool complete, const Tensor& q, const Tensor& r) {
  return dispatch_floating(a.scalar_type(), "linalg.qr", [&]<typename T>() {
    return qr_impl<T>(a, complete, q, r);
  });
}

void upper_triangular_inverse(const Tensor& r, const Tensor& out) {
  dispatch_floating(r.scalar_type(), "linalg.qr", [&]<typename T>() {
    triangular_inverse_impl<T>(r, out);
  });
}

}  // namespace ember::cpu
