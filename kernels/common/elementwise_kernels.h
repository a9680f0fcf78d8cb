#pragma once
// The elementwise kernel family (Note [Kernel tables]): its entry points, one
// slot per device. The op has checked devices and shapes, promoted the dtypes
// and cast the inputs (cast_for_kernel): every input has the dtype the
// functor computes in and broadcasts to out's shape; each input is on out's
// device or is a 0-dim CPU scalar. The ops themselves are the rows of
// kernels/common/elementwise_ops.h.
#include <initializer_list>

#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/elementwise_ops.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct ElementwiseKernels {
  // out = op(a, b), out, a and b of one dtype; alpha is add's and sub's.
  Kernel<void(const char* name, BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              double alpha)>
      binary;
  // out = op(x) with the op's parameters p0, p1, p2 (leaky_relu's slope; clamp's
  // and in-range's bounds; logit's eps; nan_to_num's replacements) holding
  // values of x's dtype; out has x's dtype, or bool for the predicates.
  Kernel<void(const char* name, UnaryOp op, const Tensor& out, const Tensor& x, const Scalar& p0,
              const Scalar& p1, const Scalar& p2)>
      unary;
  // out (bool) = op(a, b), a and b of one dtype; rtol, atol, equal_nan are isclose's.
  Kernel<void(const char* name, CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              double rtol, double atol, bool equal_nan)>
      compare;
  // out = op(a, b, c), all of out's dtype; value (of out's dtype) is addcmul's and addcdiv's.
  Kernel<void(const char* name, TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
              const Tensor& c, const Scalar& value)>
      ternary;
  // out = condition ? a : b, condition bool, a and b of out's dtype.
  Kernel<void(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b)> where;
  // out = op(inputs...), all of out's floating dtype; as many inputs as the op's row says.
  Kernel<void(const char* name, LossOp op, const Tensor& out,
              std::initializer_list<const Tensor*> inputs)>
      loss;
};

}  // namespace ember
