// The CUDA three-operand kernels (lerp, addcmul, addcdiv): one case per row of
// EMBER_TERNARY_OPS (kernels/common/elementwise_ops.h) over loops.cuh. value
// arrives as a Scalar convertible to the compute dtype.
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda {

void ternary_kernel(const char* name, TernaryOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, const Tensor& c, const Scalar& value) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise(name, out, {&a, &b, &c});
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                          \
  case TernaryOp::k##op_name:                                                         \
    return dispatch_compute<DtypeSet::dtypes>(l.out_dtype, name, [&]<typename T>() {   \
      loops::launch<T, T, T, T>(l, functor);                                          \
    });
    EMBER_TERNARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown ternary op ", static_cast<int>(op));
}

}  // namespace ember::cuda
