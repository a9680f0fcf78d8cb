#pragma once
// The CPU entry points of the reduce family (kernels/common/reduce_kernels.h
// says what each computes): the rows of kernels/common/reduce_ops.h over the
// loops of kernels/cpu/reduce_loops.h, and clip_grad_norm_'s fused
// abs_pow_sum. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/reduce_kernels.h"

namespace ember::cpu {

void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param);
void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, int64_t dim);
void abs_pow_sum_kernel(const char* name, const Tensor& out, const Tensor& in, double p);

// x itself when contiguous, else a contiguous copy that records no gradient:
// what the loops that walk (outer, n, inner) lines read.
inline Tensor contiguous_for_loops(const Tensor& x) {
  return x.is_contiguous() ? x : x.detach().contiguous();
}

}  // namespace ember::cpu
