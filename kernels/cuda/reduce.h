#pragma once
// The reductions on CUDA tensors: the device half of core/ops/reduce.cpp. The
// op has checked dims and dtypes and made the output; these plan the launch
// (kernels/cuda/reduce_plan.h) and run the kernels of reduce_*.cu. Without the
// CUDA backend each raises an Error.
#include "ember/core/tensor.h"
#include "ember/kernels/cuda/reduce_launch.h"

namespace ember::cuda {

// out (contiguous, shaped as the reduction's result; sum: int64 for integer
// and bool inputs, else in's dtype) = op over `in` (any strides) reduced to
// `keep_sizes` (in's shape with 1 at every reduced dim). param: mean's count,
// var's and std's divisor, norm's p.
void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param = 0);

// values (undefined, or in's dtype) and indices (int64), both contiguous, of
// the best element (max when is_max, else min) of `in` along its one reduced
// dim (the dim with size 1 in keep_sizes); ties keep the first index.
void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, IntArrayRef keep_sizes);

}  // namespace ember::cuda
