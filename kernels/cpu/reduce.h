#pragma once
// The CPU entry points of the reduce family (kernels/common/reduce_kernels.h
// says what each computes): the rows of kernels/common/reduce_ops.h over the
// loops of kernels/cpu/reduce_loops.h, and clip_grad_norm_'s fused
// abs_pow_sum. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/reduce_kernels.h"

namespace ember::cpu {

decltype(ReduceKernels::reduce)::Signature reduce_kernel;
decltype(ReduceKernels::arg_reduce)::Signature arg_reduce_kernel;
decltype(ReduceKernels::abs_pow_sum)::Signature abs_pow_sum_kernel;

// x itself when contiguous, else a contiguous copy that records no gradient:
// what the loops that walk (outer, n, inner) lines read.
inline Tensor contiguous_for_loops(const Tensor& x) {
  return x.is_contiguous() ? x : x.detach().contiguous();
}

}  // namespace ember::cpu
