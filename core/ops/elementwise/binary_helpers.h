#pragma once
// The launch of a binary functor over broadcast operands, out of place and in
// place, shared by the binary op files (binary.cpp, binary_math.cpp,
// logical.cpp). Internal: not part of the public API.
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::binary_detail {

using detail::cast_for_kernel;

// out = Op(a, b) on out's device (a and b already of out's dtype); alpha is
// add's and sub's. The dtypes Op takes are its row's in
// kernels/common/elementwise_ops.h.
template <template <typename> class Op>
void launch(const char* name, const Tensor& out, const Tensor& a, const Tensor& b,
            double alpha = 1) {
  kernels().elementwise.binary.on(out.device(), name)(name, BinaryOpOf<Op>::value, out, a, b,
                                                      alpha);
}

// out = Op(a, b) for broadcast a, b, computed in dtype `compute`; args is
// add's and sub's alpha or nothing.
template <template <typename> class Op, typename... Args>
Tensor binary(const char* name, const Tensor& a, const Tensor& b, ScalarType compute, Args... args) {
  const Device device = detail::common_device(name, {&a, &b});
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), name),
                     a.options().dtype(compute).device(device));
  const Tensor ac = cast_for_kernel(a, compute), bc = cast_for_kernel(b, compute);
  launch<Op>(name, out, ac, bc, double(args)...);
  return out;
}

// self = Op(self, other) in place; other broadcasts to self. `result` is the
// dtype the out-of-place op would return, which self's dtype must be able to hold.
template <template <typename> class Op, typename... Args>
void binary_inplace(const char* name, const Tensor& self, const Tensor& other, ScalarType result,
                    Args... args) {
  detail::check_operand_device(name, self, other);
  EMBER_CHECK(is_expandable_to(other.sizes(), self.sizes()), name, ": the operand of shape ",
              other.sizes(), " does not broadcast to the destination's shape ", self.sizes());
  detail::check_inplace_dtype(name, self, result);
  assert_no_internal_overlap(name, self);
  assert_no_partial_overlap(name, self, other);
  const Tensor oc = cast_for_kernel(other, self.scalar_type());
  launch<Op>(name, self, self, oc, double(args)...);
  self.impl()->bump_version();
}

}  // namespace ember::binary_detail
