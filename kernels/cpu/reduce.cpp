// The CPU reductions: one case per row of EMBER_REDUCE_OPS
// (kernels/common/reduce_ops.h) over reduce_loops.h, each instantiated for the
// dtypes of its row; and the reduce table's abs_pow_sum over the fused pass
// of optim_kernels.cpp.
#include "ember/kernels/cpu/reduce.h"

#include "ember/kernels/common/reduce_converted.h"
#include "ember/kernels/cpu/optim_kernels.h"
#include "ember/kernels/cpu/reduce_loops.h"

namespace ember::cpu {

void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param) {
  if (reduce_converted(name, op, out, in, keep_sizes, param, reduce_kernel)) return;
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, acc_type, out_kind, make_ops)                          \
  case ReduceOp::k##op_name:                                                               \
    return dispatch_dtypes<DtypeSet::dtypes>(in.scalar_type(), name, [&]<typename T>() {   \
      using Acc = acc_type;                                                                \
      using Out = reduce_out_t<ReduceOut::out_kind, T>;                                    \
      reduce<T, Acc, Out>(out.data_ptr<Out>(), in, keep_sizes, make_ops);                  \
    });
    EMBER_REDUCE_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown reduction ", static_cast<int>(op));
}

void abs_pow_sum_kernel(const char* name, const Tensor& out, const Tensor& in, double p) {
  *out.data_ptr<double>() = abs_pow_sum(name, contiguous_for_loops(in), p);
}

}  // namespace ember::cpu
