// qr and upper_triangular_inverse of kernels/cpu/linalg_spectral.h: Eigen's
// HouseholderQR per matrix, and a triangular solve.
#include "ember/kernels/cpu/linalg_spectral.h"
#include "ember/kernels/cpu/linalg_spectral_detail.h"

#include <Eigen/Householder>
#include <Eigen/QR>
#include <algorithm>

namespace ember::cpu {

namespace {

using namespace spectral_detail;

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
