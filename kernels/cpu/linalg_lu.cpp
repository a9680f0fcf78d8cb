// LU with partial pivoting through Eigen's blocked in-place factorization,
// which reports the row interchanges one by one as LAPACK's getrf does (the
// public PartialPivLU keeps them to itself), and the solves that use them.
#include <utility>

#include "ember/kernels/cpu/linalg_batch.h"
#include "ember/kernels/cpu/linalg_solve.h"

#include <Eigen/LU>

namespace ember::cpu {

using linalg_detail::for_each_matrix;
using linalg_detail::RowMajorMap;

void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  const int64_t batch = lu.size(0), m = lu.size(1), n = lu.size(2), k = std::min(m, n);
  int64_t* piv = pivots.data_ptr<int64_t>();
  int64_t* inf = info.data_ptr<int64_t>();
  dispatch_floating(lu.scalar_type(), "lu_factor", [&]<typename T>() {
    T* data = lu.data_ptr<T>();
    for_each_matrix(batch, m * n * k, [&](int64_t i) {
      int64_t* p = piv + i * k;
      inf[i] = 0;
      if (k == 0) return;
      int64_t swaps = 0;
      const Eigen::Index first_zero =
          Eigen::internal::partial_lu_impl<T, Eigen::RowMajor, int64_t>::blocked_lu(
              m, n, data + i * m * n, n, p, swaps);
      for (int64_t j = 0; j < k; ++j) ++p[j];
      if (first_zero >= 0) inf[i] = first_zero + 1;
    });
  });
}

void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  const int64_t batch = b.size(0), n = b.size(1), k = b.size(2);
  const int64_t* piv = pivots.data_ptr<int64_t>();
  dispatch_floating(b.scalar_type(), "lu_solve", [&]<typename T>() {
    T* lu_data = lu.data_ptr<T>();
    T* b_data = b.data_ptr<T>();
    for_each_matrix(batch, n * n * k, [&](int64_t i) {
      const RowMajorMap<T> a(lu_data + i * n * n, n, n);
      RowMajorMap<T> x(b_data + i * n * k, n, k);
      const int64_t* p = piv + i * n;
      // P A = L U with P the interchanges in order; A^T = U^T L^T P.
      if (!transpose) {
        for (int64_t j = 0; j < n; ++j)
          if (p[j] - 1 != j) x.row(j).swap(x.row(p[j] - 1));
        a.template triangularView<Eigen::UnitLower>().solveInPlace(x);
        a.template triangularView<Eigen::Upper>().solveInPlace(x);
      } else {
        a.transpose().template triangularView<Eigen::Lower>().solveInPlace(x);
        a.transpose().template triangularView<Eigen::UnitUpper>().solveInPlace(x);
        for (int64_t j = n - 1; j >= 0; --j)
          if (p[j] - 1 != j) x.row(j).swap(x.row(p[j] - 1));
      }
    });
  });
}

}  // namespace ember::cpu
