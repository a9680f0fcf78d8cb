#pragma once
// The loop behind the comparisons (compare.cpp) and the logical ops
// (logical.cpp): a bool result of a functor over two broadcast operands.
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::detail {

// out (bool) = Op(a, b), a and b of one dtype, on out's device; rtol, atol,
// equal_nan are isclose's.
template <template <typename> class Op>
void compare_launch(const char* name, const Tensor& out, const Tensor& a, const Tensor& b,
                    double rtol = 0, double atol = 0, bool equal_nan = false) {
  kernels().elementwise.compare.on(out.device(), name)(name, CompareOpOf<Op>::value, out, a, b,
                                                       rtol, atol, equal_nan);
}

// out = Op<T>(a, b) as bool, T the promoted dtype of a and b, broadcast.
template <template <typename> class Op, typename... Args>
Tensor bool_elementwise(const char* name, const Tensor& a, const Tensor& b, Args... args) {
  const Device device = detail::common_device(name, {&a, &b});
  const ScalarType t = result_type(a, b);
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), name),
                     a.options().dtype(kBool).device(device));
  const Tensor ac = detail::cast_for_kernel(a, t), bc = detail::cast_for_kernel(b, t);
  compare_launch<Op>(name, out, ac, bc, args...);
  return out;
}

}  // namespace ember::detail
