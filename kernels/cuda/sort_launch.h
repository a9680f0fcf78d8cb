#pragma once
// The entry points of the sort kernels (kernels/cuda/sort_kernels.cu, CUDA
// builds only), on plain data: the entry points after them allocate the workspace
// from the caching allocator. Rows of up to kBitonicMaxRow elements are
// sorted in shared memory and need no workspace; longer rows go through
// cub::DeviceSegmentedRadixSort, whose keys, positions and temp storage live
// in the workspace.
#include <cstddef>
#include <cstdint>

#include "ember/core/dtype.h"

namespace ember::cuda::detail {

constexpr int64_t kBitonicMaxRow = 2048;

// Bytes of workspace launch_sort needs for (rows, n) of dtype t (0 for short rows).
size_t sort_workspace_bytes(ScalarType t, int64_t rows, int64_t n, bool descending, int device);

void launch_sort(ScalarType t, const void* x, int64_t* indices, int64_t rows, int64_t n,
                 bool descending, void* workspace, size_t workspace_bytes, int device);

// out[row] = order[row, pos] for each of the rows of x and order (contiguous
// (rows, n), order ascending); with nan_wins, a row holding NaN gives its
// first NaN instead (median's rule; NaNs sort last).
void launch_pick_sorted(ScalarType t, const void* x, const int64_t* order, int64_t* out,
                        int64_t rows, int64_t n, int64_t pos, bool nan_wins, int device);

}  // namespace ember::cuda::detail
