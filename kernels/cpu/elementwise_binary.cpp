// The CPU binary kernels: one case per row of EMBER_BINARY_OPS, each
// instantiated for the dtypes of its row.
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/compute_loops.h"

namespace ember::cpu {

void binary_kernel(const char* name, BinaryOp op, const Tensor& out, const Tensor& a,
                   const Tensor& b, double alpha) {
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, functor)                                             \
  case BinaryOp::k##op_name:                                                             \
    return dispatch_compute<DtypeSet::dtypes>(out.scalar_type(), name, [&]<typename T>() { \
      compute_elementwise<T, T, T>(out, {&a, &b}, functor);                                      \
    });
    EMBER_BINARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown binary op ", static_cast<int>(op));
}

}  // namespace ember::cpu
