// The unary kernels (neg ... gelu, clamp, the predicates, sin ... frac, bitwise_not,
// erf ... trigamma, exp2, sinc, logit, nan_to_num, isinf ... signbit): the shared functors
// over loops.cuh, one instantiation per dtype each op accepts. Parameters
// arrive as Scalars holding values of the compute dtype, so to<T>() is exact.
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/special_functors.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cuda/elementwise_launch.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda::detail {
namespace {

template <template <typename> class Op, typename T>
void same_dtype(const ElementwiseLaunch& l) {
  loops::launch<T, T>(l, Op<T>{});
}
template <template <typename> class Op, typename T>
void to_bool(const ElementwiseLaunch& l) {
  loops::launch<bool, T>(l, Op<T>{});
}

}  // namespace

void launch_unary(const char* name, UnaryOp op, const ElementwiseLaunch& l, const Scalar& p0,
                  const Scalar& p1, const Scalar& p2) {
  using namespace functors;
  // The computing dtype is the input's (out is bool for the predicates).
  const ScalarType t = l.input_dtypes[0];
#define EMBER_NUMERIC(Op) \
  return dispatch_numeric(t, name, [&]<typename T>() { same_dtype<Op, T>(l); })
#define EMBER_FLOATING(Op) \
  return dispatch_floating(t, name, [&]<typename T>() { same_dtype<Op, T>(l); })
#define EMBER_PREDICATE(Op) \
  return dispatch_all(t, name, [&]<typename T>() { to_bool<Op, T>(l); })
  switch (op) {
    case UnaryOp::kNeg: EMBER_NUMERIC(Neg);
    case UnaryOp::kAbs: EMBER_NUMERIC(Abs);
    case UnaryOp::kSquare: EMBER_NUMERIC(Square);
    case UnaryOp::kRelu: EMBER_NUMERIC(Relu);
    case UnaryOp::kSign:
      return dispatch_all(t, name, [&]<typename T>() { same_dtype<Sign, T>(l); });
    case UnaryOp::kExp: EMBER_FLOATING(Exp);
    case UnaryOp::kLog: EMBER_FLOATING(Log);
    case UnaryOp::kSqrt: EMBER_FLOATING(Sqrt);
    case UnaryOp::kRsqrt: EMBER_FLOATING(Rsqrt);
    case UnaryOp::kReciprocal: EMBER_FLOATING(Reciprocal);
    case UnaryOp::kSigmoid: EMBER_FLOATING(Sigmoid);
    case UnaryOp::kTanh: EMBER_FLOATING(Tanh);
    case UnaryOp::kNormalCdf: EMBER_FLOATING(NormalCdf);
    case UnaryOp::kGelu: EMBER_FLOATING(Gelu);
    case UnaryOp::kGeluTanh: EMBER_FLOATING(GeluTanh);
    case UnaryOp::kSin: EMBER_FLOATING(Sin);
    case UnaryOp::kCos: EMBER_FLOATING(Cos);
    case UnaryOp::kTan: EMBER_FLOATING(Tan);
    case UnaryOp::kAsin: EMBER_FLOATING(Asin);
    case UnaryOp::kAcos: EMBER_FLOATING(Acos);
    case UnaryOp::kAtan: EMBER_FLOATING(Atan);
    case UnaryOp::kSinh: EMBER_FLOATING(Sinh);
    case UnaryOp::kCosh: EMBER_FLOATING(Cosh);
    case UnaryOp::kLog1p: EMBER_FLOATING(Log1p);
    case UnaryOp::kExpm1: EMBER_FLOATING(Expm1);
    case UnaryOp::kLog2: EMBER_FLOATING(Log2);
    case UnaryOp::kLog10: EMBER_FLOATING(Log10);
    case UnaryOp::kFloor: EMBER_FLOATING(Floor);
    case UnaryOp::kCeil: EMBER_FLOATING(Ceil);
    case UnaryOp::kRound: EMBER_FLOATING(Round);
    case UnaryOp::kTrunc: EMBER_FLOATING(Trunc);
    case UnaryOp::kFrac: EMBER_FLOATING(Frac);
    case UnaryOp::kIsNan: EMBER_PREDICATE(IsNan);
    case UnaryOp::kIsFinite: EMBER_PREDICATE(IsFinite);
    case UnaryOp::kLogicalNot: EMBER_PREDICATE(LogicalNot);
    case UnaryOp::kBitwiseNot:
      return dispatch_integral(t, name, [&]<typename T>() { same_dtype<BitwiseNot, T>(l); });
    case UnaryOp::kErf: EMBER_FLOATING(Erf);
    case UnaryOp::kErfc: EMBER_FLOATING(Erfc);
    case UnaryOp::kErfinv: EMBER_FLOATING(Erfinv);
    case UnaryOp::kLgamma: EMBER_FLOATING(Lgamma);
    case UnaryOp::kDigamma: EMBER_FLOATING(Digamma);
    case UnaryOp::kTrigamma: EMBER_FLOATING(Trigamma);
    case UnaryOp::kExp2: EMBER_FLOATING(Exp2);
    case UnaryOp::kSinc: EMBER_FLOATING(Sinc);
    case UnaryOp::kIsInf: EMBER_PREDICATE(IsInf);
    case UnaryOp::kIsPosInf: EMBER_PREDICATE(IsPosInf);
    case UnaryOp::kIsNegInf: EMBER_PREDICATE(IsNegInf);
    case UnaryOp::kSignbit: EMBER_PREDICATE(Signbit);
    case UnaryOp::kLogit:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<T, T>(l, Logit<T>{p0.to<T>()});
      });
    case UnaryOp::kNanToNum:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<T, T>(l, NanToNum<T>{p0.to<T>(), p1.to<T>(), p2.to<T>()});
      });
    case UnaryOp::kLeakyRelu:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<T, T>(l, LeakyRelu<T>{p0.to<T>()});
      });
    case UnaryOp::kClamp:
      return dispatch_numeric(t, name, [&]<typename T>() {
        loops::launch<T, T>(l, Clamp<T>{p0.to<T>(), p1.to<T>()});
      });
    case UnaryOp::kInRange:
      return dispatch_floating(t, name, [&]<typename T>() {
        loops::launch<bool, T>(l, InRange<T>{p0.to<T>(), p1.to<T>()});
      });
  }
#undef EMBER_NUMERIC
#undef EMBER_FLOATING
#undef EMBER_PREDICATE
  EMBER_INTERNAL_ASSERT(false, name, ": unknown unary op ", static_cast<int>(op));
}

}  // namespace ember::cuda::detail
