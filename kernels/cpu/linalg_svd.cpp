// svd of kernels/cpu/linalg_spectral.h: Eigen's JacobiSVD per matrix.
#include "ember/kernels/cpu/linalg_spectral.h"
#include "ember/kernels/cpu/linalg_spectral_detail.h"

#include <Eigen/SVD>
#include <algorithm>

namespace ember::cpu {

namespace {

using namespace spectral_detail;

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

}  // namespace

bool svd(const Tensor& a, bool full, const Tensor& u, const Tensor& s, const Tensor& vh) {
  return dispatch_floating(a.scalar_type(), "linalg.svd", [&]<typename T>() {
    return svd_impl<T>(a, full, u, s, vh);
  });
}

}  // namespace ember::cpu
