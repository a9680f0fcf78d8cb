#pragma once
// The CUDA entry points of the reduce family (kernels/common/reduce_kernels.h
// says what each computes): the rows of kernels/common/reduce_ops.h over
// kernels/cuda/reduce_kernels.cuh, in reduce_sum.cu (reduce, abs_pow_sum) and
// reduce_arg.cu (arg_reduce), apart for compile time. Registered in
// kernels/cuda/register_kernels.cu. plan_reduce, the launch plan, is plain C++
// built in every configuration and tested on the CPU.
#include "ember/kernels/common/cuda_plans/reduce_plan.h"
#include "ember/kernels/common/reduce_kernels.h"

namespace ember::cuda {

decltype(ReduceKernels::reduce)::Signature reduce_kernel;
decltype(ReduceKernels::arg_reduce)::Signature arg_reduce_kernel;
decltype(ReduceKernels::abs_pow_sum)::Signature abs_pow_sum_kernel;

// One reduction's launch: the plan, the tensor the kernel reads, and the
// two-pass workspace.
struct ReduceLaunch {
  ReducePlan plan;
  // `in`, or when its dims do not merge into kMaxReduceDims of each kind, a
  // copy with the kept dims first and the reduced ones last (one dim of each
  // kind once merged). The output's element order is the same either way:
  // only size-1 dims move between them.
  Tensor input;
  // p.splits * p.num_outputs * kReduceWorkspaceBytes bytes on in's device from
  // its caching allocator when the plan has two passes, else undefined.
  Tensor workspace;
  int device = 0;
};

// The launch of reducing `in` (any strides) to `keep_sizes` (in's shape with 1
// at every reduced dim) on a device of `sm_count` multiprocessors.
ReduceLaunch plan_reduce(const char* name, const Tensor& in, IntArrayRef keep_sizes, int sm_count);

}  // namespace ember::cuda
