#pragma once
// The entry point of the scan kernel (kernels/cuda/scan_kernels.cu, CUDA
// builds only), on plain data: kernels/cuda/scan.cpp reads the tensors.
#include <cstdint>

#include "ember/core/dtype.h"

namespace ember::cuda::detail {

void launch_scan(const char* name, bool is_prod, ScalarType t, const void* in, void* out,
                 int64_t outer, int64_t n, int64_t inner, int device);
void launch_logcumsumexp(ScalarType t, const void* in, void* out, int64_t outer, int64_t n,
                         int64_t inner, int device);
void launch_cum_extreme(const char* name, bool is_max, ScalarType t, const void* in, void* values,
                        int64_t* indices, int64_t outer, int64_t n, int64_t inner, int device);

}  // namespace ember::cuda::detail
