// The binary arithmetic kernels (add, sub, mul, div, pow, maximum, minimum,
// relu's backward, remainder, fmod, floor_divide, atan2, bitwise and/or/xor,
// hypot, xlogy, copysign, logaddexp(2), heaviside): the shared functors over loops.cuh, one instantiation per
// dtype each op accepts.
#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cuda/elementwise_launch.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda::detail {
namespace {

template <template <typename> class Op>
void floating(const char* name, const ElementwiseLaunch& l) {
  dispatch_floating(l.out_dtype, name, [&]<typename T>() { loops::launch<T, T, T>(l, Op<T>{}); });
}

}  // namespace

void launch_binary(const char* name, BinaryOp op, const ElementwiseLaunch& l, double alpha) {
  using namespace functors;
  const ScalarType t = l.out_dtype;
  switch (op) {
    case BinaryOp::kAdd:
      return dispatch_all(t, name, [&]<typename T>() {
        loops::launch<T, T, T>(l, Add<T>{static_cast<T>(alpha)});
      });
    case BinaryOp::kSub:
      return dispatch_numeric(t, name, [&]<typename T>() {
        loops::launch<T, T, T>(l, Sub<T>{static_cast<T>(alpha)});
      });
    case BinaryOp::kMul:
      return dispatch_all(t, name, [&]<typename T>() { loops::launch<T, T, T>(l, Mul<T>{}); });
    case BinaryOp::kDiv:
      return dispatch_floating(t, name,
                               [&]<typename T>() { loops::launch<T, T, T>(l, Div<T>{}); });
    case BinaryOp::kPow:
      return dispatch_all(t, name, [&]<typename T>() { loops::launch<T, T, T>(l, Pow<T>{}); });
    case BinaryOp::kMaximum:
      return dispatch_all(t, name,
                          [&]<typename T>() { loops::launch<T, T, T>(l, Maximum<T>{}); });
    case BinaryOp::kMinimum:
      return dispatch_all(t, name,
                          [&]<typename T>() { loops::launch<T, T, T>(l, Minimum<T>{}); });
    case BinaryOp::kReluBackward:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<T, T, T>(l, ReluBackward<T>{});
      });
    case BinaryOp::kRemainder:
      return dispatch_numeric(t, name,
                              [&]<typename T>() { loops::launch<T, T, T>(l, Remainder<T>{}); });
    case BinaryOp::kFmod:
      return dispatch_numeric(t, name, [&]<typename T>() { loops::launch<T, T, T>(l, Fmod<T>{}); });
    case BinaryOp::kFloorDivide:
      return dispatch_numeric(t, name,
                              [&]<typename T>() { loops::launch<T, T, T>(l, FloorDivide<T>{}); });
    case BinaryOp::kAtan2:
      return dispatch_floating(t, name,
                               [&]<typename T>() { loops::launch<T, T, T>(l, Atan2<T>{}); });
    case BinaryOp::kBitwiseAnd:
      return dispatch_integral(t, name,
                               [&]<typename T>() { loops::launch<T, T, T>(l, BitwiseAnd<T>{}); });
    case BinaryOp::kBitwiseOr:
      return dispatch_integral(t, name,
                               [&]<typename T>() { loops::launch<T, T, T>(l, BitwiseOr<T>{}); });
    case BinaryOp::kBitwiseXor:
      return dispatch_integral(t, name,
                               [&]<typename T>() { loops::launch<T, T, T>(l, BitwiseXor<T>{}); });
    case BinaryOp::kHypot: return floating<Hypot>(name, l);
    case BinaryOp::kXlogy: return floating<Xlogy>(name, l);
    case BinaryOp::kCopysign: return floating<Copysign>(name, l);
    case BinaryOp::kLogAddExp: return floating<LogAddExp>(name, l);
    case BinaryOp::kLogAddExp2: return floating<LogAddExp2>(name, l);
    case BinaryOp::kHeaviside:
      return dispatch_all(t, name,
                          [&]<typename T>() { loops::launch<T, T, T>(l, Heaviside<T>{}); });
  }
  EMBER_INTERNAL_ASSERT(false, name, ": unknown binary op ", static_cast<int>(op));
}

}  // namespace ember::cuda::detail
