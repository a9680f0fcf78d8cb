// The CPU unary kernels: one case per row of EMBER_UNARY_OPS, each
// instantiated for the dtypes of its row. Parameters arrive as Scalars holding
// values of the compute dtype, so to<T>() is exact.
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/compute_loops.h"

namespace ember::cpu {

void unary_kernel(const char* name, UnaryOp op, const Tensor& out, const Tensor& x,
                  const Scalar& p0, const Scalar& p1, const Scalar& p2) {
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, out_kind, functor)                                    \
  case UnaryOp::k##op_name:                                                               \
    return dispatch_compute<DtypeSet::dtypes>(x.scalar_type(), name, [&]<typename T>() {   \
      compute_elementwise<unary_out_t<UnaryOut::out_kind, T>, T>(out, {&x}, functor);             \
    });
    EMBER_UNARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown unary op ", static_cast<int>(op));
}

}  // namespace ember::cpu
