// The comparison kernels (eq ... ge, isclose, logical and/or/xor: bool out) and where, over loops.cuh.
#include "ember/kernels/common/compare_functors.h"
#include "ember/kernels/cuda/elementwise_launch.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda::detail {
namespace {

template <typename T>
struct Select {
  __device__ __forceinline__ T operator()(bool c, T x, T y) const { return c ? x : y; }
};

template <template <typename> class Op>
void compare(const char* name, const ElementwiseLaunch& l) {
  dispatch_all(l.input_dtypes[0], name,
               [&]<typename T>() { loops::launch<bool, T, T>(l, Op<T>{}); });
}

}  // namespace

void launch_compare(const char* name, CompareOp op, const ElementwiseLaunch& l, double rtol,
                    double atol, bool equal_nan) {
  using namespace functors;
  switch (op) {
    case CompareOp::kEq: return compare<Eq>(name, l);
    case CompareOp::kNe: return compare<Ne>(name, l);
    case CompareOp::kLt: return compare<Lt>(name, l);
    case CompareOp::kLe: return compare<Le>(name, l);
    case CompareOp::kGt: return compare<Gt>(name, l);
    case CompareOp::kGe: return compare<Ge>(name, l);
    case CompareOp::kLogicalAnd: return compare<LogicalAnd>(name, l);
    case CompareOp::kLogicalOr: return compare<LogicalOr>(name, l);
    case CompareOp::kLogicalXor: return compare<LogicalXor>(name, l);
    case CompareOp::kIsClose:
      return dispatch_all(l.input_dtypes[0], name, [&]<typename T>() {
        loops::launch<bool, T, T>(l, IsClose<T>{rtol, atol, equal_nan});
      });
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown comparison ", static_cast<int>(op));
}

void launch_where(const ElementwiseLaunch& l) {
  dispatch_all(l.out_dtype, "where",
               [&]<typename T>() { loops::launch<T, bool, T, T>(l, Select<T>{}); });
}

}  // namespace ember::cuda::detail
