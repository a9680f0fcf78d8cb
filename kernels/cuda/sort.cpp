// The host half of the CUDA sort (kernels/cuda/sort_kernels.cu): checks the
// row length and allocates the long-row workspace from the caching allocator.
// Compiled in every build; without CUDA it raises.
#include "ember/kernels/cuda/sort.h"

#include <limits>

#include "ember/core/ops/factory.h"
#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/sort_launch.h"

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

void sort_kernel(const Tensor& indices, const Tensor& x, int64_t rows, int64_t n,
                 bool descending) {
  EMBER_CHECK(n <= std::numeric_limits<int>::max(), "sort: rows of ", n,
              " elements are too long for the CUDA sort (at most 2^31 - 1; tensor of shape ",
              x.sizes(), ")");
  if (rows == 0 || n == 0) return;
  const int device = detail::device_of(x);
  const size_t bytes = detail::sort_workspace_bytes(x.scalar_type(), rows, n, descending, device);
  // An ember tensor of bytes, so that the workspace comes from the caching allocator.
  const Tensor workspace =
      bytes == 0 ? Tensor()
                 : empty({static_cast<int64_t>(bytes)}, TensorOptions().dtype(kBool).device(x.device()));
  detail::launch_sort(x.scalar_type(), x.data_ptr(), indices.data_ptr<int64_t>(), rows, n,
                      descending, detail::data_or_null(workspace), bytes, device);
}

#else

void sort_kernel(const Tensor&, const Tensor& x, int64_t, int64_t, bool) {
  detail::no_cuda("sort", x);
}

#endif

}  // namespace ember::cuda
