// Cholesky through Eigen's blocked in-place LLT, which says at which column
// the factorization failed (the public LLT only says that it did).

#include "ember/kernels/cpu/linalg_batch.h"
#include "ember/kernels/cpu/linalg_solve.h"

#include <Eigen/Cholesky>

namespace ember::cpu {

using linalg_detail::for_each_matrix;
using linalg_detail::RowMajorMap;

void cholesky(const Tensor& a, const Tensor& info) {
  const int64_t batch = a.size(0), n = a.size(1);
  int64_t* inf = info.data_ptr<int64_t>();
  dispatch_floating(a.scalar_type(), "cholesky", [&]<typename T>() {
    T* data = a.data_ptr<T>();
    for_each_matrix(batch, n * n * n / 3, [&](int64_t i) {
      RowMajorMap<T> m(data + i * n * n, n, n);
      const Eigen::Index failed = Eigen::internal::llt_inplace<T, Eigen::Lower>::blocked(m);
      inf[i] = failed >= 0 ? failed + 1 : 0;
      m.template triangularView<Eigen::StrictlyUpper>().setZero();
    });
  });
}

}  // namespace ember::cpu
