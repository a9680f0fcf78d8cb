// The host half of the CUDA sort (kernels/cuda/sort_kernels.cu): lays the rows
// out contiguously, checks the row length and allocates the long-row workspace
// from the caching allocator. Compiled in every build; registered only in a
// CUDA build.
#include "ember/kernels/cuda/sort.h"

#include <limits>

#include "ember/core/ops/factory.h"
#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/sort_launch.h"

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

namespace {

// x's rows as a contiguous (outer * inner, n): x itself when inner == 1,
// otherwise a copy with the dim moved last.
Tensor as_rows(const Tensor& x, SortRows r) {
  if (r.inner == 1) return x;
  return x.view({r.outer, r.n, r.inner}).permute({0, 2, 1}).contiguous();
}

// order (int64, contiguous (outer * inner, n)) = the positions of each row of
// `rows` (contiguous (outer * inner, n)) in sorted order.
void sort_rows(const Tensor& order, const Tensor& rows, SortRows r, bool descending) {
  EMBER_CHECK(r.n <= std::numeric_limits<int>::max(), "sort: rows of ", r.n,
              " elements are too long for the CUDA sort (at most 2^31 - 1; tensor of shape ",
              rows.sizes(), ")");
  const int64_t count = r.outer * r.inner;
  if (count == 0 || r.n == 0) return;
  const int device = detail::device_of(rows);
  const size_t bytes =
      detail::sort_workspace_bytes(rows.scalar_type(), count, r.n, descending, device);
  // An ember tensor of bytes, so that the workspace comes from the caching allocator.
  const Tensor workspace =
      bytes == 0 ? Tensor()
                 : empty({static_cast<int64_t>(bytes)},
                         TensorOptions().dtype(kBool).device(rows.device()));
  detail::launch_sort(rows.scalar_type(), rows.data_ptr(), order.data_ptr<int64_t>(), count,
                      r.n, descending, detail::data_or_null(workspace), bytes, device);
}

// A (outer * inner, n) int64 buffer for the sorted positions.
Tensor order_for(const Tensor& x, SortRows r) {
  return empty({r.outer * r.inner, r.n}, TensorOptions().dtype(kLong).device(x.device()));
}

}  // namespace

void sort_kernel(const Tensor& indices, const Tensor& x, SortRows r, bool descending) {
  if (r.inner == 1) return sort_rows(indices, x, r, descending);
  const Tensor order = order_for(x, r);
  sort_rows(order, as_rows(x, r), r, descending);
  indices.view({r.outer, r.n, r.inner}).copy_(order.view({r.outer, r.inner, r.n}).permute({0, 2, 1}));
}

// The full sort, then the first k positions of each row.
void topk_kernel(const Tensor& indices, const Tensor& x, SortRows r, int64_t k, bool largest,
                 bool) {
  const Tensor order = order_for(x, r);
  sort_rows(order, as_rows(x, r), r, largest);
  indices.view({r.outer, k, r.inner})
      .copy_(order.view({r.outer, r.inner, r.n}).narrow(2, 0, k).permute({0, 2, 1}));
}

// The full ascending sort, then one position of each row.
void kth_kernel(const Tensor& indices, const Tensor& x, SortRows r, int64_t pos, bool nan_wins) {
  const Tensor rows = as_rows(x, r), order = order_for(x, r);
  sort_rows(order, rows, r, /*descending=*/false);
  detail::launch_pick_sorted(rows.scalar_type(), rows.data_ptr(), order.data_ptr<int64_t>(),
                             indices.data_ptr<int64_t>(), r.outer * r.inner, r.n, pos,
                             nan_wins && x.is_floating_point(), detail::device_of(x));
}

#endif

}  // namespace ember::cuda
