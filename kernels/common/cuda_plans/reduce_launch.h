#pragma once
// The launch of a CUDA reduction from its tensors, read by the kernels of
// kernels/cuda/reduce_*.cu. Plain C++, built in every configuration and tested
// on the CPU (tests/cuda_reduce_plan_test.cpp).
#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/reduce_plan.h"

namespace ember::cuda {

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
