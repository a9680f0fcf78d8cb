// The host half of the CUDA scan kernel (kernels/cuda/scan_kernels.cu).
// Compiled in every build; without CUDA it raises.
#include "ember/kernels/cuda/scan.h"

#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/scan_launch.h"

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner) {
  detail::launch_scan(name, is_prod, in.scalar_type(), in.data_ptr(), out.data_ptr(), outer, n,
                      inner, detail::device_of(in));
}

void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner) {
  detail::launch_logcumsumexp(in.scalar_type(), in.data_ptr(), out.data_ptr(), outer, n, inner,
                              detail::device_of(in));
}

void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner) {
  detail::launch_cum_extreme(name, is_max, in.scalar_type(), in.data_ptr(), values.data_ptr(),
                             indices.data_ptr<int64_t>(), outer, n, inner, detail::device_of(in));
}

#else

void scan_kernel(const char* name, bool, const Tensor&, const Tensor& in, int64_t, int64_t,
                 int64_t) {
  detail::no_cuda(name, in);
}

void logcumsumexp_kernel(const Tensor&, const Tensor& in, int64_t, int64_t, int64_t) {
  detail::no_cuda("logcumsumexp", in);
}

void cum_extreme_kernel(const char* name, bool, const Tensor&, const Tensor&, const Tensor& in,
                        int64_t, int64_t, int64_t) {
  detail::no_cuda(name, in);
}

#endif

}  // namespace ember::cuda
