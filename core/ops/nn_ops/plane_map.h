#pragma once
// Internal to the pooling and upsampling ops (pooling.cpp, upsample.cpp).
//
// Note [Plane maps]: avg_pool2d, adaptive_avg_pool2d and the upsamplings are
// linear maps from stacks of planes (*, H, W) to (*, OH, OW). The backward of
// such a map is its adjoint (transpose), and the adjoint's backward is the map
// again, so recording each as the derivative of the other gives gradients of
// every order with two kernels per op.
#include <functional>
#include <memory>

#include "ember/core/tensor.h"

namespace ember::detail {

struct PlaneMap {
  // Both kernels take contiguous tensors: (P, H, W) -> (P, OH, OW) for `map`,
  // (P, OH, OW) -> (P, H, W) for `adjoint` (kernels/cpu/planes.h), on the
  // input's device (each calls its family's kernel table).
  using Kernel = std::function<void(const Tensor& in, const Tensor& out)>;
  const char* name;          // of the node the map records, e.g. "AvgPool2dBackward"
  const char* adjoint_name;  // of the node its adjoint records
  int64_t in_h, in_w, out_h, out_w;
  Kernel map, adjoint;
};

// The map (or its adjoint) applied to x's last two dims, recording autograd.
Tensor apply_plane_map(const Tensor& x, const std::shared_ptr<const PlaneMap>& m, bool adjoint);

// The checks every 2-d pooling/resampling op makes: a floating (C, H, W) or
// (N, C, H, W) tensor (CPU or CUDA) with C, H, W > 0 (N may be 0).
void check_planes_input(const char* op, const Tensor& x);

// A pair of sizes given as one value (both) or two, as libtorch's int-or-pair
// arguments; `what` names the argument in the error.
struct Pair {
  int64_t h, w;
};
Pair expand_pair(const char* op, const char* what, IntArrayRef v);

}  // namespace ember::detail
