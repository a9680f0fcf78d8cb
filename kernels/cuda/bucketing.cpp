// The host half of the CUDA bucketing kernels (kernels/cuda/bucketing_kernels.cu).
// Compiled in every build; without CUDA it raises.
#include "ember/kernels/cuda/bucketing.h"

#include "ember/kernels/cuda/bucketing_launch.h"
#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right) {
  const int64_t* s = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  detail::launch_searchsorted(seq.scalar_type(), seq.data_ptr(), values.data_ptr(), s,
                              out.data_ptr<int64_t>(), values.numel(), seq_rows, n, right,
                              detail::device_of(values));
}

void bincount(const Tensor& out, const Tensor& x, const Tensor& weights) {
  detail::launch_bincount(out.scalar_type(), x.data_ptr<int64_t>(), detail::data_or_null(weights),
                          out.data_ptr(), x.numel(), detail::device_of(x));
}

void histc(const Tensor& out, const Tensor& x, double lo, double hi) {
  detail::launch_histc(x.scalar_type(), x.data_ptr(), out.data_ptr(), x.numel(), lo, hi, out.numel(),
                       detail::device_of(x));
}

#else

void searchsorted(const Tensor&, const Tensor&, const Tensor& values, const Tensor&, int64_t, int64_t,
                  bool) {
  detail::no_cuda("searchsorted", values);
}
void bincount(const Tensor&, const Tensor& x, const Tensor&) { detail::no_cuda("bincount", x); }
void histc(const Tensor&, const Tensor& x, double, double) { detail::no_cuda("histc", x); }

#endif

}  // namespace ember::cuda
