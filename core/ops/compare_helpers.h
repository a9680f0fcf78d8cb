#pragma once
// The loop behind the comparisons (compare.cpp) and the logical ops
// (logical.cpp): a bool result of a functor over two broadcast operands.
#include "ember/core/ops/elementwise_helpers.h"
#include "ember/kernels/cuda/elementwise.h"

namespace ember::detail {

// out = Op<T>(a, b) as bool, T the promoted dtype of a and b, broadcast.
template <template <typename> class Op, typename... Args>
Tensor bool_elementwise(const char* name, const Tensor& a, const Tensor& b, Args... args) {
  const Device device = detail::common_device(name, {&a, &b});
  const ScalarType t = result_type(a, b);
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes(), name),
                     a.options().dtype(kBool).device(device));
  const Tensor ac = detail::cast_for_kernel(a, t), bc = detail::cast_for_kernel(b, t);
  dispatch_all(t, name, [&]<typename T>() {
    if (out.is_cuda())
      cuda::compare_kernel(name, cuda::CompareOpOf<Op>::value, out, ac, bc, args...);
    else
      cpu::elementwise<bool, T, T>(out, {&ac, &bc}, Op<T>{args...});
  });
  return out;
}

}  // namespace ember::detail
