#pragma once
// The launch of a binary functor over broadcast operands, out of place and in
// place, shared by the binary op files (binary.cpp, binary_math.cpp,
// logical.cpp). Internal: not part of the public API.
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise_helpers.h"
#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/cuda/elementwise.h"

namespace ember::binary_detail {

using detail::cast_for_kernel;

// The dtypes a functor is instantiated for, and the error for the others:
// every dtype unless specialized below.
template <template <typename> class Op>
struct Dtypes {
  template <typename F>
  static void dispatch(ScalarType t, const char* name, F&& f) { dispatch_all(t, name, f); }
};
#define EMBER_BINARY_DTYPES(Op, dispatcher)                            \
  template <>                                                          \
  struct Dtypes<functors::Op> {                                        \
    template <typename F>                                              \
    static void dispatch(ScalarType t, const char* name, F&& f) {      \
      dispatcher(t, name, f);                                          \
    }                                                                  \
  };
EMBER_BINARY_DTYPES(Remainder, dispatch_numeric)
EMBER_BINARY_DTYPES(Fmod, dispatch_numeric)
EMBER_BINARY_DTYPES(FloorDivide, dispatch_numeric)
EMBER_BINARY_DTYPES(Atan2, dispatch_floating)
EMBER_BINARY_DTYPES(BitwiseAnd, dispatch_integral)
EMBER_BINARY_DTYPES(BitwiseOr, dispatch_integral)
EMBER_BINARY_DTYPES(BitwiseXor, dispatch_integral)
EMBER_BINARY_DTYPES(Hypot, dispatch_floating)
EMBER_BINARY_DTYPES(Xlogy, dispatch_floating)
EMBER_BINARY_DTYPES(Copysign, dispatch_floating)
EMBER_BINARY_DTYPES(LogAddExp, dispatch_floating)
EMBER_BINARY_DTYPES(LogAddExp2, dispatch_floating)
#undef EMBER_BINARY_DTYPES

// out = Op<T>{args...}(a, b) on out's device, T = out's dtype (a and b are
// already of that dtype); args is add/sub's alpha or nothing.
template <template <typename> class Op, typename... Args>
void launch(const char* name, const Tensor& out, const Tensor& a, const Tensor& b, Args... args) {
  Dtypes<Op>::dispatch(out.scalar_type(), name, [&]<typename T>() {
    if (out.is_cuda())
      cuda::binary_kernel(name, cuda::BinaryOpOf<Op>::value, out, a, b, double(args)...);
    else
      detail::launch_binary<T>(out, a, b, Op<T>{static_cast<T>(args)...});
  });
}

// out = Op<T>{args...}(a, b) for broadcast a, b, computed in dtype `compute`.
template <template <typename> class Op, typename... Args>
Tensor binary(const char* name, const Tensor& a, const Tensor& b, ScalarType compute, Args... args) {
  const Device device = detail::common_device(name, {&a, &b});
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), name),
                     a.options().dtype(compute).device(device));
  const Tensor ac = cast_for_kernel(a, compute), bc = cast_for_kernel(b, compute);
  launch<Op>(name, out, ac, bc, args...);
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
  launch<Op>(name, self, self, oc, args...);
  self.impl()->bump_version();
}

}  // namespace ember::binary_detail
