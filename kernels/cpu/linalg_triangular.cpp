// Triangular solves through Eigen's triangularView, one matrix at a time.
#include "ember/kernels/cpu/linalg_batch.h"
#include "ember/kernels/cpu/linalg_solve.h"

namespace ember::cpu {

using linalg_detail::for_each_matrix;
using linalg_detail::RowMajorMap;

namespace {

template <int Mode, typename T>
void solve_each(T* a_data, T* b_data, int64_t batch, int64_t n, int64_t k) {
  for_each_matrix(batch, n * n * k, [&](int64_t i) {
    const RowMajorMap<T> a(a_data + i * n * n, n, n);
    RowMajorMap<T> x(b_data + i * n * k, n, k);
    a.template triangularView<Mode>().solveInPlace(x);
  });
}

}  // namespace

void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool unitriangular) {
  const int64_t batch = b.size(0), n = b.size(1), k = b.size(2);
  dispatch_floating(b.scalar_type(), "triangular_solve", [&]<typename T>() {
    T* ad = a.data_ptr<T>();
    T* bd = b.data_ptr<T>();
    if (upper && unitriangular) solve_each<Eigen::UnitUpper>(ad, bd, batch, n, k);
    else if (upper) solve_each<Eigen::Upper>(ad, bd, batch, n, k);
    else if (unitriangular) solve_each<Eigen::UnitLower>(ad, bd, batch, n, k);
    else solve_each<Eigen::Lower>(ad, bd, batch, n, k);
  });
}

}  // namespace ember::cpu
