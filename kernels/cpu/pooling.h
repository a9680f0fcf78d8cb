#pragma once
// The CPU entry points of the pooling family (kernels/common/pooling_kernels.h
// says what each computes and what the op has checked), registered in
// kernels/cpu/register_kernels.cpp. Every tensor is contiguous and read as a
// stack of planes (P, H, W) over its last two dims (P = the product of the
// others); outputs are (P, OH, OW). Work is split over planes.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pooling_functors.h"
#include "ember/kernels/common/pooling_kernels.h"

namespace ember::cpu {

using PoolWindow = functors::PoolWindow;

// out: the window maxima (NaN wins, as PyTorch); indices (int64): the flat
// position h * W + w of each maximum in its plane, the first one on ties.
// Padding counts as -inf.
decltype(PoolingKernels::max_pool2d)::Signature max_pool2d;

// The window means; the divisor counts the padding inside the window when
// count_include_pad (never the part past the padding that ceil_mode adds).
decltype(PoolingKernels::avg_pool2d)::Signature avg_pool2d;
// The adjoint of avg_pool2d: grad_in (P, H, W) = each output's gradient spread
// over its window with the same divisor.
decltype(PoolingKernels::avg_pool2d_backward)::Signature avg_pool2d_backward;

// Output (oh, ow) averages rows [floor(oh*H/OH), ceil((oh+1)*H/OH)) and the
// same for columns.
decltype(PoolingKernels::adaptive_avg_pool2d)::Signature adaptive_avg_pool2d;
decltype(PoolingKernels::adaptive_avg_pool2d_backward)::Signature adaptive_avg_pool2d_backward;
// The maximum of the same windows, and its flat position in the plane
// (its gradient: core/ops/nn_ops/pooling.cpp scatters by these indices).
decltype(PoolingKernels::adaptive_max_pool2d)::Signature adaptive_max_pool2d;

}  // namespace ember::cpu
