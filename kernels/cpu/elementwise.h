#pragma once
// The CPU entry points of the elementwise family (kernels/common/
// elementwise_kernels.h says what each computes): the rows of
// kernels/common/elementwise_ops.h over the strided loop of kernels/cpu/loops.h.
// Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/elementwise_kernels.h"

namespace ember::cpu {

decltype(ElementwiseKernels::binary)::Signature binary_kernel;
decltype(ElementwiseKernels::unary)::Signature unary_kernel;
decltype(ElementwiseKernels::compare)::Signature compare_kernel;
decltype(ElementwiseKernels::ternary)::Signature ternary_kernel;
decltype(ElementwiseKernels::where)::Signature where_kernel;
decltype(ElementwiseKernels::loss)::Signature loss_kernel;

}  // namespace ember::cpu
