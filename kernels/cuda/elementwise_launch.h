#pragma once
// The entry points of the elementwise kernels (kernels/cuda/elementwise_*.cu,
// CUDA builds only), on plain data: kernels/cuda/elementwise.cpp plans the
// launch from the tensors. Each dispatches on the dtypes its ops accept.
#include "ember/core/scalar.h"
#include "ember/kernels/cuda/elementwise_geometry.h"
#include "ember/kernels/cuda/elementwise_ops.h"

namespace ember::cuda::detail {

void launch_binary(const char* name, BinaryOp op, const ElementwiseLaunch& l, double alpha);
void launch_unary(const char* name, UnaryOp op, const ElementwiseLaunch& l, const Scalar& p0,
                  const Scalar& p1, const Scalar& p2);
void launch_compare(const char* name, CompareOp op, const ElementwiseLaunch& l, double rtol,
                    double atol, bool equal_nan);
void launch_ternary(const char* name, TernaryOp op, const ElementwiseLaunch& l, const Scalar& value);
void launch_where(const ElementwiseLaunch& l);
void launch_loss(const char* name, LossOp op, const ElementwiseLaunch& l);

}  // namespace ember::cuda::detail
