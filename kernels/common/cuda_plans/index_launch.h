#pragma once
// The launch plans of the CUDA indexing kernels (kernels/cuda/indexing.h)
// from their tensors. Plain C++, built in every configuration and tested on
// the CPU (tests/cuda_index_plan_test.cpp).
#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/indexing_plan.h"

namespace ember::cuda {

// The launch plans of the above, exposed for the CPU tests.
IndexLaunch plan_gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                        const Tensor& index);
IndexLaunch plan_index_select(const char* op, const Tensor& out, const Tensor& self,
                              int64_t dim, const Tensor& index);
// scatter_add's plan serves scatter and scatter_reduce too (same geometry).
IndexLaunch plan_scatter_add(const char* op, const Tensor& self, int64_t dim,
                             const Tensor& index, const Tensor& src);

}  // namespace ember::cuda
