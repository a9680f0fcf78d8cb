#pragma once
// Note [Broadcast geometry]
// Every elementwise loop, on either device, walks out[i] = f(in_k[i]...) over
// out's shape with each input broadcast to it. Before the loop, the shape is
// reduced to as few dims as possible: size-1 dims are dropped (they add no
// elements), and two neighbouring dims become one where every operand steps
// from the end of the inner one straight into the next outer one (outer stride
// == inner size * inner stride). Dense operands of one shape thus become one
// flat run, and x + bias over (N, C) with bias of shape (C) stays two dims.
// This is that plan, written once: the CPU's strided loop (kernels/cpu/loops.h)
// and the CUDA launch geometry (kernels/common/cuda_plans/elementwise_geometry.h) build on
// it.
#include <array>

#include "ember/core/dim_vector.h"

namespace ember {

// The output and up to three inputs.
constexpr int kMaxBroadcastOperands = 4;

struct BroadcastGeometry {
  DimVector sizes;  // outermost first; empty when there is one element
  // Each operand's element strides over `sizes`: 0 on the dims it is broadcast
  // along.
  std::array<DimVector, kMaxBroadcastOperands> strides;
};

// The merged geometry of `num_operands` operands over `sizes`. Operand k has
// shape operand_sizes[k] and strides operand_strides[k], aligned with `sizes`
// on the right (a missing or size-1 dim is broadcast); operand 0 is usually
// the output, of shape `sizes`.
BroadcastGeometry broadcast_geometry(IntArrayRef sizes, const IntArrayRef* operand_sizes,
                                     const IntArrayRef* operand_strides, int num_operands);

}  // namespace ember
