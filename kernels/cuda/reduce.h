#pragma once
// The reductions on CUDA tensors: the device half of core/ops/reduce.cpp. The
// op has checked dims and dtypes and made the output; these plan the launch
// (kernels/cuda/reduce_plan.h) and run the kernels of reduce_*.cu. Without the
// CUDA backend each raises an Error.
#include "ember/core/tensor.h"
#include "ember/kernels/cuda/reduce_launch.h"

namespace ember::cuda {

// out (contiguous, shaped as the reduction's result; sum, prod: int64 for integer
// and bool inputs, else in's dtype) = op over `in` (any strides) reduced to
// `keep_sizes` (in's shape with 1 at every reduced dim). param: mean's count,
// var's and std's divisor, norm's p. Inputs whose dims do not merge into
// kMaxReduceDims of each kind are first copied with the reduced dims last.
void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param = 0);

// out (a 0-d float64 tensor on in's device) = sum of |in|^p over all of in's
// elements, or the largest |in| when p is inf (NaN sticks; 0 for an empty
// in), accumulated in double: the CUDA twin of cpu::abs_pow_sum, for
// clip_grad_norm_. in: float32 or float64, any strides.
void abs_pow_sum_kernel(const char* name, const Tensor& out, const Tensor& in, double p);

// values (undefined, or in's dtype) and indices (int64), both contiguous, of
// the best element (max when is_max, else min) of `in` along its one reduced
// dim (the dim with size 1 in keep_sizes); ties keep the first index.
void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, IntArrayRef keep_sizes);

}  // namespace ember::cuda
