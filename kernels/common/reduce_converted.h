#pragma once
// Note [Reductions of the narrow dtypes]
// The reduce kernels are compiled for the compute dtypes (compute_dtype: bool,
// int64, float32, float64). An input of another dtype in the row's set
// (bfloat16, float16, the narrow integers) is converted to its compute dtype,
// reduced by the same kernel, accumulating as float32 and float64 inputs do,
// and the result rounded once into `out` (PyTorch also accumulates bfloat16
// sums in float). The conversion is one extra pass over the input.
#include "ember/core/tensor.h"
#include "ember/kernels/common/reduce_ops.h"

namespace ember {

// If `in` is not of its compute dtype: runs `kernel` (the backend's own
// reduce kernel) on the converted input and returns true. False otherwise.
template <typename Kernel>
bool reduce_converted(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                      IntArrayRef keep_sizes, double param, Kernel kernel) {
  const ScalarType t = in.scalar_type(), c = compute_dtype(t);
  if (t == c) return false;
  if (!accepts(kReduceOpDtypes[static_cast<int>(op)], t)) [[unlikely]]
    dtype_not_supported(name, t, describe(kReduceOpDtypes[static_cast<int>(op)]));
  const Tensor converted = in.detach().to(c);
  const Tensor result = out.new_empty(out.sizes(), out.options().dtype(reduce_out_dtype(op, c)));
  kernel(name, op, result, converted, keep_sizes, param);
  out.detach().copy_(result);
  return true;
}

}  // namespace ember
