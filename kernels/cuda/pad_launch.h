#pragma once
// The launches of the padding kernels (kernels/cuda/pad_kernels.cu, CUDA
// builds only), on plain data: the entry points of kernels/cuda/pad.h read
// the tensors. Every buffer is contiguous device memory of `device`: `outer`
// slabs of (a.in, inner) elements for the input and (a.out, inner) for the
// output.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/kernels/common/pad_functors.h"

namespace ember::cuda::detail {

void launch_pad_axis(ScalarType t, const void* x, void* out, const functors::PadAxis& a,
                     int64_t outer, int64_t inner, double value, int device);
void launch_pad_axis_backward(ScalarType t, const void* grad_out, void* grad_in,
                              const functors::PadAxis& a, int64_t outer, int64_t inner,
                              int device);

}  // namespace ember::cuda::detail
