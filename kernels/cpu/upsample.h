#pragma once
// The CPU entry points of the upsample family (kernels/common/
// upsample_kernels.h says what each computes and what the op has checked),
// registered in kernels/cpu/register_kernels.cpp: contiguous tensors read as
// stacks of planes (P, H, W) -> (P, OH, OW), work split over planes. Source
// coordinates follow PyTorch (its float arithmetic included).
#include "ember/core/tensor.h"

namespace ember::cpu {

// out[oh][ow] = x[src(oh)][src(ow)], src(d) = min(floor(d * in / out), in - 1).
void upsample_nearest2d(const Tensor& x, const Tensor& out);
// The adjoint: each input gathers the gradients of the outputs that copied it.
void upsample_nearest2d_backward(const Tensor& grad_out, const Tensor& grad_in);

// Bilinear interpolation between the 4 neighbours of each source point.
void upsample_bilinear2d(const Tensor& x, const Tensor& out, bool align_corners);
void upsample_bilinear2d_backward(const Tensor& grad_out, const Tensor& grad_in,
                                  bool align_corners);

}  // namespace ember::cpu
