#pragma once
// The CPU entry points of the upsample family (kernels/common/
// upsample_kernels.h says what each computes and what the op has checked),
// registered in kernels/cpu/register_kernels.cpp: contiguous tensors read as
// stacks of planes (P, H, W) -> (P, OH, OW), work split over planes. Source
// coordinates follow PyTorch (its float arithmetic included).
#include "ember/core/tensor.h"
#include "ember/kernels/common/upsample_kernels.h"

namespace ember::cpu {

// out[oh][ow] = x[src(oh)][src(ow)], src(d) = min(floor(d * in / out), in - 1).
decltype(UpsampleKernels::nearest2d)::Signature upsample_nearest2d;
// The adjoint: each input gathers the gradients of the outputs that copied it.
decltype(UpsampleKernels::nearest2d_backward)::Signature upsample_nearest2d_backward;

// Bilinear interpolation between the 4 neighbours of each source point.
decltype(UpsampleKernels::bilinear2d)::Signature upsample_bilinear2d;
decltype(UpsampleKernels::bilinear2d_backward)::Signature upsample_bilinear2d_backward;

}  // namespace ember::cpu
