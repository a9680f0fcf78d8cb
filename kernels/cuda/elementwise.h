#pragma once
// The CUDA entry points of the elementwise family (kernels/common/
// elementwise_kernels.h says what each computes): the rows of
// kernels/common/elementwise_ops.h over kernels/cuda/loops.cuh, in
// kernels/cuda/elementwise_*.cu. Registered in kernels/cuda/register_kernels.cu.
// plan_elementwise, the launch plan, is plain C++ built in every configuration
// and tested on the CPU.
#include "ember/kernels/common/elementwise_kernels.h"
#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

namespace ember::cuda {

void binary_kernel(const char* name, BinaryOp op, const Tensor& out, const Tensor& a,
                   const Tensor& b, double alpha);
void unary_kernel(const char* name, UnaryOp op, const Tensor& out, const Tensor& x,
                  const Scalar& p0, const Scalar& p1, const Scalar& p2);
void compare_kernel(const char* name, CompareOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, double rtol, double atol, bool equal_nan);
void ternary_kernel(const char* name, TernaryOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, const Tensor& c, const Scalar& value);
void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
void loss_kernel(const char* name, LossOp op, const Tensor& out,
                 std::initializer_list<const Tensor*> inputs);

// The launch of out = f(inputs...) (at most kMaxElementwiseInputs): the
// geometry, and whether the vector path applies.
ElementwiseLaunch plan_elementwise(const char* name, const Tensor& out,
                                   std::initializer_list<const Tensor*> inputs);

}  // namespace ember::cuda
