// The CUDA bucketing entry points of a build without CUDA: each raises. (With
// CUDA they are in kernels/cuda/bucketing_kernels.cu.)
#include "ember/kernels/cuda/bucketing.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in bucketing_kernels.cu

void searchsorted(const Tensor&, const Tensor&, const Tensor& values, const Tensor&, int64_t, int64_t,
                  bool) {
  detail::no_cuda("searchsorted", values);
}
void bincount(const Tensor&, const Tensor& x, const Tensor&) { detail::no_cuda("bincount", x); }
void histc(const Tensor&, const Tensor& x, double, double) { detail::no_cuda("histc", x); }

#endif

}  // namespace ember::cuda
