// The CUDA binary kernels: one case per row of EMBER_BINARY_OPS
// (kernels/common/elementwise_ops.h) over loops.cuh, each instantiated for the
// dtypes of its row.
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda {

void binary_kernel(const char* name, BinaryOp op, const Tensor& out, const Tensor& a,
                   const Tensor& b, double alpha) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise(name, out, {&a, &b});
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                           \
  case BinaryOp::k##op_name:                                                           \
    return dispatch_compute<DtypeSet::dtypes>(l.out_dtype, name, [&]<typename T>() {    \
      loops::launch<T, T, T>(l, functor);                                              \
    });
    EMBER_BINARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown binary op ", static_cast<int>(op));
}

}  // namespace ember::cuda
