#pragma once
// The CUDA entry points of the elementwise family (kernels/common/
// elementwise_kernels.h says what each computes): the rows of
// kernels/common/elementwise_ops.h over kernels/cuda/loops.cuh, in
// kernels/cuda/elementwise_*.cu. Registered in kernels/cuda/register_kernels.cu.
// plan_elementwise, the launch plan, is plain C++ built in every configuration
// and tested on the CPU (kernels/common/cuda_plans/elementwise_launch.h).
#include "ember/kernels/common/cuda_plans/elementwise_launch.h"
#include "ember/kernels/common/elementwise_kernels.h"

namespace ember::cuda {

decltype(ElementwiseKernels::binary)::Signature binary_kernel;
decltype(ElementwiseKernels::unary)::Signature unary_kernel;
decltype(ElementwiseKernels::compare)::Signature compare_kernel;
decltype(ElementwiseKernels::ternary)::Signature ternary_kernel;
decltype(ElementwiseKernels::where)::Signature where_kernel;
decltype(ElementwiseKernels::loss)::Signature loss_kernel;

}  // namespace ember::cuda
