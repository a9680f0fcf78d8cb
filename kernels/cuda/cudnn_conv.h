#pragma once
// conv2d's three passes on CUDA tensors through cuDNN: the CUDA entries of
// the conv kernel table (kernels/common/conv_kernels.h, which says what the
// op has checked; Note [Conv primitives] in core/ops/nn_ops/conv.cpp), built only
// with the CUDA backend (cudnn_conv.cu). The algorithm comes from cuDNN's
// heuristic or, with backends::cudnn benchmark mode on, from the cuDNN
// benchmark cache (docs/benchmark-mode.md). An input at an address cuDNN
// cannot take is copied to an aligned buffer first (Note [Aligned cuDNN
// operands] in cudnn_conv_plan.h). Core and kernels/common reach the cache
// functions below through the CUDA backend hooks (Note [CUDA backend hooks] in
// core/cuda/backend.h), which answer "no-cuda" without the backend.
#include <string>

#include "ember/core/tensor.h"
#include "ember/kernels/common/conv_kernels.h"
#include "ember/kernels/common/conv_params.h"

namespace ember::bench {
struct AlgoResult;
}

namespace ember::cuda {

// y = conv(x, w) (+ bias). x: (N, C, H, W), w: (K, C/groups, R, S), bias: (K)
// or undefined, y: (N, K, OH, OW), overwritten.
decltype(ConvKernels::forward)::Signature cudnn_conv_forward;
// gx = the conv's backward-data of gy (+ bias: conv_transpose2d's).
// gy: (N, K, OH, OW), bias: (C) or undefined, gx: (N, C, H, W), overwritten.
decltype(ConvKernels::backward_data)::Signature cudnn_conv_backward_data;
// gw = the conv's backward-weight. gw: (K, C/groups, R, S), overwritten.
decltype(ConvKernels::backward_weight)::Signature cudnn_conv_backward_weight;

// The machine tag of the current device (compute capability and cuDNN
// version, "sm90-cudnn91900"), or "no-cuda" without a device. The cuDNN
// benchmark caches start with it, so that a file loaded at their first use
// (EMBER_CUDNN_CACHE) matches even before the first conv.
std::string cudnn_current_machine_tag();
// Sets the machine tag of the cuDNN benchmark caches from the current device,
// so that a cache file loaded before the first conv matches it. No-op without
// a device.
void cudnn_set_machine_tag();
// Whether a result loaded from a cache file names a cuDNN algorithm of its
// pass (0 forward, 1 backward-data, 2 backward-weight) and a cuDNN math type.
bool cudnn_result_valid(size_t pass, const bench::AlgoResult& r);

}  // namespace ember::cuda
