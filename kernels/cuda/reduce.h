#pragma once
// The CUDA entry points of the reduce family (kernels/common/reduce_kernels.h
// says what each computes): the rows of kernels/common/reduce_ops.h over
// kernels/cuda/reduce_kernels.cuh, in reduce_sum.cu (reduce, abs_pow_sum) and
// reduce_arg.cu (arg_reduce), apart for compile time. Registered in
// kernels/cuda/register_kernels.cu. plan_reduce, the launch plan, is plain C++
// built in every configuration and tested on the CPU
// (kernels/common/cuda_plans/reduce_launch.h).
#include "ember/kernels/common/cuda_plans/reduce_launch.h"
#include "ember/kernels/common/reduce_kernels.h"

namespace ember::cuda {

decltype(ReduceKernels::reduce)::Signature reduce_kernel;
decltype(ReduceKernels::arg_reduce)::Signature arg_reduce_kernel;
decltype(ReduceKernels::abs_pow_sum)::Signature abs_pow_sum_kernel;

}  // namespace ember::cuda
