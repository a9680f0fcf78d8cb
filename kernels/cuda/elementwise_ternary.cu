// The three-operand kernels (lerp, addcmul, addcdiv): the shared functors of
// kernels/common/pointwise_functors.h over loops.cuh. value arrives as a Scalar
// holding a value of the compute dtype, so to<T>() is exact.
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/cuda/elementwise_launch.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda::detail {

void launch_ternary(const char* name, TernaryOp op, const ElementwiseLaunch& l,
                    const Scalar& value) {
  using namespace functors;
  const ScalarType t = l.out_dtype;
  switch (op) {
    case TernaryOp::kLerp:
      return dispatch_floating(t, name,
                               [&]<typename T>() { loops::launch<T, T, T, T>(l, Lerp<T>{}); });
    case TernaryOp::kAddcmul:
      return dispatch_numeric(t, name, [&]<typename T>() {
        loops::launch<T, T, T, T>(l, Addcmul<T>{value.to<T>()});
      });
    case TernaryOp::kAddcdiv:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<T, T, T, T>(l, Addcdiv<T>{value.to<T>()});
      });
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown ternary op ", static_cast<int>(op));
}

}  // namespace ember::cuda::detail
