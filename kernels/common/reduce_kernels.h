#pragma once
// The reduce kernel family (Note [Kernel tables]): its entry points, one slot
// per device. The op has checked the dims (and, where the op asks for one, the
// dtype) and made the outputs: contiguous, on the input's device, shaped as
// the reduction's result. The reductions themselves are the rows of
// kernels/common/reduce_ops.h.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/reduce_ops.h"

namespace ember {

struct ReduceKernels {
  // out (of dtype reduce_out_dtype(op, in's dtype)) = op over `in` (any
  // strides) reduced to `keep_sizes`: in's shape with 1 at every reduced dim.
  // param: mean's count, var's and std's divisor, a p-norm's p.
  Kernel<void(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
              IntArrayRef keep_sizes, double param)>
      reduce;
  // values (undefined, or of in's dtype) and indices (int64) of the best
  // element (max when is_max, else min) of `in` (any strides) along dim `dim`
  // (wrapped; 0 for a 0-d in), which has at least one element; ties keep the
  // first index, the first NaN wins.
  Kernel<void(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
              const Tensor& in, int64_t dim)>
      arg_reduce;
  // out (0-d float64) = the sum of |in|^p over all of in's elements, or the
  // largest |in| when p is inf (NaN sticks; 0 for an empty in), accumulated in
  // double; in: float32 or float64, any strides. clip_grad_norm_'s parts.
  Kernel<void(const char* name, const Tensor& out, const Tensor& in, double p)> abs_pow_sum;
};

}  // namespace ember
