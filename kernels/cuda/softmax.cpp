// The host half of the CUDA softmax family. Compiled in every build; without
// CUDA each raises.
#include "ember/kernels/cuda/softmax.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::cuda {
namespace {

void run(const char* name, int mode, const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
#ifdef EMBER_WITH_CUDA
  if (rows == 0) return;
  detail::launch_softmax(name, mode, y.data_ptr(), x.data_ptr(), x.scalar_type(), rows, n,
                         std::max(x.device().index(), 0));
#else
  (void)mode, (void)y, (void)rows, (void)n;
  EMBER_ERROR(name, ": ", x.toString(), " needs the CUDA backend");
#endif
}

}  // namespace

void softmax_kernel(const char* name, bool log, const Tensor& y, const Tensor& x, int64_t rows,
                    int64_t n) {
  if (n == 0) return;  // no elements
  run(name, log ? 1 : 0, y, x, rows, n);
}

void softmax_columns_kernel(const char* name, bool log, const Tensor& y, const Tensor& x,
                            int64_t outer, int64_t n, int64_t inner) {
#ifdef EMBER_WITH_CUDA
  if (outer * n * inner == 0) return;
  detail::launch_softmax_columns(name, log ? 1 : 0, y.data_ptr(), x.data_ptr(), x.scalar_type(),
                                 outer, n, inner, std::max(x.device().index(), 0));
#else
  (void)log, (void)y, (void)outer, (void)n, (void)inner;
  EMBER_ERROR(name, ": ", x.toString(), " needs the CUDA backend");
#endif
}

void logsumexp_kernel(const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
  run("logsumexp", 2, y, x, rows, n);
}

}  // namespace ember::cuda
