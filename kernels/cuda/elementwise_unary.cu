// The CUDA unary kernels: one case per row of EMBER_UNARY_OPS
// (kernels/common/elementwise_ops.h) over loops.cuh, each instantiated for the
// dtypes of its row. Parameters arrive as Scalars holding values of the
// compute dtype, so to<T>() is exact.
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda {

void unary_kernel(const char* name, UnaryOp op, const Tensor& out, const Tensor& x,
                  const Scalar& p0, const Scalar& p1, const Scalar& p2) {
  if (out.numel() == 0) return;
  const ElementwiseLaunch l = plan_elementwise(name, out, {&x});
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, out_kind, functor)                                    \
  case UnaryOp::k##op_name:                                                               \
    return dispatch_compute<DtypeSet::dtypes>(l.input_dtypes[0], name, [&]<typename T>() { \
      loops::launch<unary_out_t<UnaryOut::out_kind, T>, T>(l, functor);                   \
    });
    EMBER_UNARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown unary op ", static_cast<int>(op));
}

}  // namespace ember::cuda
