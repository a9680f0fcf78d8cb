// The host half of the CUDA softmax family. Compiled in every build; without
// CUDA each raises.
#include "ember/kernels/cuda/softmax.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {
namespace {

void run(const char* name, int mode, const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
#ifdef EMBER_WITH_CUDA
  if (rows == 0) return;
  detail::launch_softmax(name, mode, y.data_ptr(), x.data_ptr(), x.scalar_type(), rows, n,
                         detail::device_of(x));
#else
  (void)mode, (void)y, (void)rows, (void)n;
  detail::no_cuda(name, x);
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
                                 outer, n, inner, detail::device_of(x));
#else
  (void)log, (void)y, (void)outer, (void)n, (void)inner;
  detail::no_cuda(name, x);
#endif
}

void logsumexp_kernel(const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
  run("logsumexp", 2, y, x, rows, n);
}

}  // namespace ember::cuda
