#pragma once
// The PlaneShape (pooling_launch.h) of a pooling or upsampling call, read by
// the entry points in kernels/cuda/{pooling,upsample}_kernels.cu.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/cuda/pooling_launch.h"

namespace ember::cuda::detail {

// in: (P, H, W), out: (P, OH, OW) by their last two dims.
inline PlaneShape plane_shape(const Tensor& in, const Tensor& out) {
  const int64_t oh = out.size(-2), ow = out.size(-1);
  return {oh * ow == 0 ? 0 : out.numel() / (oh * ow), in.size(-2), in.size(-1), oh, ow};
}

}  // namespace ember::cuda::detail
