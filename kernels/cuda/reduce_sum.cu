// The summing reductions (sum, prod, mean, var, std, norms, clip_grad_norm_'s
// float64 sums of |x|^p) and the comparing ones (max, min over all elements,
// all, any, max |x|): the shared Ops over reduce_kernels.cuh,
// instantiated for the dtypes core/ops/reduce.cpp accepts.
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/cuda/reduce_kernels.cuh"
#include "ember/kernels/cuda/reduce_launch.h"

namespace ember::cuda::detail {

void launch_reduce(const char* name, ReduceOp op, const ReducePlan& p, void* out, const void* in,
                   ScalarType in_dtype, void* workspace, double param, int device) {
  using namespace functors;
  // The reduction of T into Out, accumulating in Acc, with `ops`.
  auto go = [&]<typename T, typename Acc, typename Out>(const auto& ops) {
    reduce_kernels::run<T, Acc>(p, static_cast<const T*>(in), workspace, ops,
                                reduce_kernels::ValueSink<Out>{static_cast<Out*>(out)}, device);
  };
  switch (op) {
    case ReduceOp::kSum:
      return dispatch_all(in_dtype, name, [&]<typename T>() {
        using Acc = sum_acc_t<T>;
        using Out = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
        go.template operator()<T, Acc, Out>(SumOps<T, Acc, Out>{});
      });
    case ReduceOp::kProd:
      return dispatch_all(in_dtype, name, [&]<typename T>() {
        using Acc = sum_acc_t<T>;
        using Out = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
        go.template operator()<T, Acc, Out>(ProdOps<T, Acc, Out>{});
      });
    case ReduceOp::kMean:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, T>(MeanOps<T, double, T>{{}, param});
      });
    case ReduceOp::kVar:
    case ReduceOp::kStd:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, T>(VarOps<T, double, T>{param, op == ReduceOp::kStd});
      });
    case ReduceOp::kNorm1:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, T>(Norm1Ops<T, double, T>{});
      });
    case ReduceOp::kNorm2:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, T>(Norm2Ops<T, double, T>{});
      });
    case ReduceOp::kNormP:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, T>(NormPOps<T, double, T>{{}, param});
      });
    case ReduceOp::kMax:
      return dispatch_all(in_dtype, name,
                          [&]<typename T>() { go.template operator()<T, T, T>(MaxOps<T>{}); });
    case ReduceOp::kMin:
      return dispatch_all(in_dtype, name,
                          [&]<typename T>() { go.template operator()<T, T, T>(MinOps<T>{}); });
    case ReduceOp::kAll:
      return dispatch_all(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, bool, bool>(AllOps<T>{});
      });
    case ReduceOp::kAny:
      return dispatch_all(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, bool, bool>(AnyOps<T>{});
      });
    case ReduceOp::kAbsSum:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, double>(Norm1Ops<T, double, double>{});
      });
    case ReduceOp::kSquareSum:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, double>(SquareSumOps<T, double, double>{});
      });
    case ReduceOp::kAbsPowSum:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, double>(AbsPowSumOps<T, double, double>{{}, param});
      });
    case ReduceOp::kAbsMax:
      return dispatch_floating(in_dtype, name, [&]<typename T>() {
        go.template operator()<T, double, double>(AbsMaxOps<T, double>{});
      });
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown reduction ", static_cast<int>(op));
}

}  // namespace ember::cuda::detail
