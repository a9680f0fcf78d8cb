// eigh of kernels/cpu/linalg_spectral.h: Eigen's SelfAdjointEigenSolver per matrix.
#include "ember/kernels/cpu/linalg_spectral.h"
#include "ember/kernels/cpu/linalg_spectral_detail.h"

#include <Eigen/Eigenvalues>

namespace ember::cpu {

namespace {

using namespace spectral_detail;

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

}  // namespace

bool eigh(const Tensor& a, bool upper, const Tensor& values, const Tensor& vectors) {
  return dispatch_floating(a.scalar_type(), "linalg.eigh", [&]<typename T>() {
    return eigh_impl<T>(a, upper, values, vectors);
  });
}

}  // namespace ember::cpu
