#pragma once
// The entry points of kernels/cuda/bucketing_kernels.cu (CUDA builds only), on
// plain data; kernels/cuda/bucketing.cpp unpacks the tensors.
#include <cstdint>

#include "ember/core/dtype.h"

namespace ember::cuda::detail {

void launch_searchsorted(ScalarType t, const void* seq, const void* values, const int64_t* sorter,
                         int64_t* out, int64_t total, int64_t seq_rows, int64_t n, bool right,
                         int device);
// out (of dtype t, zeroed) [x[i]] += weights[i], or 1 when weights is null.
void launch_bincount(ScalarType t, const int64_t* x, const void* weights, void* out, int64_t count,
                     int device);
void launch_histc(ScalarType t, const void* x, void* out, int64_t count, double lo, double hi,
                  int64_t bins, int device);

}  // namespace ember::cuda::detail
