// The summing reductions (sum, prod, mean, var, std, norms, clip_grad_norm_'s
// float64 sums of |x|^p) and the comparing ones (max, min over all elements,
// all, any, max |x|): one case per row of EMBER_REDUCE_OPS
// (kernels/common/reduce_ops.h) over reduce_kernels.cuh, each instantiated for
// the dtypes of its row.
#include <cmath>

#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/common/reduce_converted.h"
#include "ember/kernels/cuda/reduce.h"
#include "ember/kernels/cuda/reduce_kernels.cuh"

namespace ember::cuda {

void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param) {
  if (out.numel() == 0) return;
  if (reduce_converted(name, op, out, in, keep_sizes, param, reduce_kernel)) return;
  const ReduceLaunch l =
      plan_reduce(name, in, keep_sizes, reduce_kernels::multiprocessors(detail::device_of(in)));
  void* const workspace = detail::data_or_null(l.workspace);
  using namespace functors;
  switch (op) {
#define EMBER_CASE(op_name, dtypes, acc_type, out_kind, make_ops)                                \
  case ReduceOp::k##op_name:                                                                     \
    return dispatch_dtypes<DtypeSet::dtypes>(in.scalar_type(), name, [&]<typename T>() {         \
      using Acc = acc_type;                                                                      \
      using Out = reduce_out_t<ReduceOut::out_kind, T>;                                          \
      reduce_kernels::run<T, Acc>(l.plan, static_cast<const T*>(l.input.data_ptr()), workspace, \
                                  make_ops, reduce_kernels::ValueSink<Out>{out.data_ptr<Out>()}, \
                                  l.device);                                                     \
    });
    EMBER_REDUCE_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown reduction ", static_cast<int>(op));
}

void abs_pow_sum_kernel(const char* name, const Tensor& out, const Tensor& in, double p) {
  const ReduceOp op = std::isinf(p) ? ReduceOp::kAbsMax
                      : p == 2      ? ReduceOp::kSquareSum
                      : p == 1      ? ReduceOp::kAbsSum
                                    : ReduceOp::kAbsPowSum;
  reduce_kernel(name, op, out, in, DimVector(static_cast<size_t>(in.dim()), 1), p);
}

}  // namespace ember::cuda
