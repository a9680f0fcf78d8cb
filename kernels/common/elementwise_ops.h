#pragma once
// Note [Elementwise op tables]
// The one list of the elementwise kernels' ops, per family: each row names
// the op, the dtypes its kernel takes and the functor it computes with
// (kernels/common/*_functors.h). Everything else is generated from these rows:
// the op enums (BinaryOp::kAdd, ...), the functor -> enum traits the op files
// use (BinaryOpOf<functors::Add>), the dtype set of each op, and the switch of
// both backends' kernels (kernels/cpu/elementwise_*.cpp, kernels/cuda/
// elementwise_*.cu), which dispatch with dispatch_dtypes on the row's set, so
// the CPU and CUDA kernels accept the same dtypes by construction.
//
// In a row's functor expression, T is the compute type and the op's
// parameters are in scope: `alpha` (double) for binary ops; `p0, p1, p2`
// (Scalars holding values of T) for unary ops; `rtol, atol, equal_nan` for
// comparisons; `value` (a Scalar of T) for ternary ops.
//
// Adding an elementwise op with an existing shape of functor: its functor, one
// row here (bump the count below), and its op function in core/ops.
#include <type_traits>

#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/compare_functors.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/loss_functors.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/special_functors.h"
#include "ember/kernels/common/unary_functors.h"

// out = f(a, b), all of dtype T.      X(name, dtypes, functor)
#define EMBER_BINARY_OPS(X)                                   \
  X(Add, kAll, (Add<T>{static_cast<T>(alpha)}))               \
  X(Sub, kNumeric, (Sub<T>{static_cast<T>(alpha)}))           \
  X(Mul, kAll, Mul<T>{})                                      \
  X(Div, kFloating, Div<T>{})                                 \
  X(Pow, kAll, Pow<T>{})                                      \
  X(Maximum, kAll, Maximum<T>{})                              \
  X(Minimum, kAll, Minimum<T>{})                              \
  X(ReluBackward, kFloating, ReluBackward<T>{})               \
  X(Remainder, kNumeric, Remainder<T>{})                      \
  X(Fmod, kNumeric, Fmod<T>{})                                \
  X(FloorDivide, kNumeric, FloorDivide<T>{})                  \
  X(Atan2, kFloating, Atan2<T>{})                             \
  X(BitwiseAnd, kIntegral, BitwiseAnd<T>{})                   \
  X(BitwiseOr, kIntegral, BitwiseOr<T>{})                     \
  X(BitwiseXor, kIntegral, BitwiseXor<T>{})                   \
  X(Hypot, kFloating, Hypot<T>{})                             \
  X(Xlogy, kFloating, Xlogy<T>{})                             \
  X(Copysign, kFloating, Copysign<T>{})                       \
  X(LogAddExp, kFloating, LogAddExp<T>{})                     \
  X(LogAddExp2, kFloating, LogAddExp2<T>{})                   \
  X(Heaviside, kAll, Heaviside<T>{})

// out = f(x), x of dtype T; out of dtype T (Same) or bool (Bool).
//                                     X(name, dtypes, out, functor)
#define EMBER_UNARY_OPS(X)                                                         \
  X(Neg, kNumeric, Same, Neg<T>{})                                                 \
  X(Exp, kFloating, Same, Exp<T>{})                                                \
  X(Log, kFloating, Same, Log<T>{})                                                \
  X(Sqrt, kFloating, Same, Sqrt<T>{})                                              \
  X(Rsqrt, kFloating, Same, Rsqrt<T>{})                                            \
  X(Abs, kNumeric, Same, Abs<T>{})                                                 \
  X(Sign, kAll, Same, Sign<T>{})                                                   \
  X(Square, kNumeric, Same, Square<T>{})                                           \
  X(Reciprocal, kFloating, Same, Reciprocal<T>{})                                  \
  X(Relu, kNumeric, Same, Relu<T>{})                                               \
  X(LeakyRelu, kFloating, Same, LeakyRelu<T>{p0.to<T>()})                          \
  X(Sigmoid, kFloating, Same, Sigmoid<T>{})                                        \
  X(Tanh, kFloating, Same, Tanh<T>{})                                              \
  X(NormalCdf, kFloating, Same, NormalCdf<T>{})                                    \
  X(Gelu, kFloating, Same, Gelu<T>{})                                              \
  X(GeluTanh, kFloating, Same, GeluTanh<T>{})                                      \
  X(Clamp, kNumeric, Same, (Clamp<T>{p0.to<T>(), p1.to<T>()}))                     \
  X(InRange, kFloating, Bool, (InRange<T>{p0.to<T>(), p1.to<T>()}))                \
  X(IsNan, kAll, Bool, IsNan<T>{})                                                 \
  X(IsFinite, kAll, Bool, IsFinite<T>{})                                           \
  X(LogicalNot, kAll, Bool, LogicalNot<T>{})                                       \
  X(Sin, kFloating, Same, Sin<T>{})                                                \
  X(Cos, kFloating, Same, Cos<T>{})                                                \
  X(Tan, kFloating, Same, Tan<T>{})                                                \
  X(Asin, kFloating, Same, Asin<T>{})                                              \
  X(Acos, kFloating, Same, Acos<T>{})                                              \
  X(Atan, kFloating, Same, Atan<T>{})                                              \
  X(Sinh, kFloating, Same, Sinh<T>{})                                              \
  X(Cosh, kFloating, Same, Cosh<T>{})                                              \
  X(Log1p, kFloating, Same, Log1p<T>{})                                            \
  X(Expm1, kFloating, Same, Expm1<T>{})                                            \
  X(Log2, kFloating, Same, Log2<T>{})                                              \
  X(Log10, kFloating, Same, Log10<T>{})                                            \
  X(Floor, kFloating, Same, Floor<T>{})                                            \
  X(Ceil, kFloating, Same, Ceil<T>{})                                              \
  X(Round, kFloating, Same, Round<T>{})                                            \
  X(Trunc, kFloating, Same, Trunc<T>{})                                            \
  X(Frac, kFloating, Same, Frac<T>{})                                              \
  X(BitwiseNot, kIntegral, Same, BitwiseNot<T>{})                                  \
  X(Erf, kFloating, Same, Erf<T>{})                                                \
  X(Erfc, kFloating, Same, Erfc<T>{})                                              \
  X(Erfinv, kFloating, Same, Erfinv<T>{})                                          \
  X(Lgamma, kFloating, Same, Lgamma<T>{})                                          \
  X(Digamma, kFloating, Same, Digamma<T>{})                                        \
  X(Trigamma, kFloating, Same, Trigamma<T>{})                                      \
  X(Exp2, kFloating, Same, Exp2<T>{})                                              \
  X(Sinc, kFloating, Same, Sinc<T>{})                                              \
  X(Logit, kFloating, Same, Logit<T>{p0.to<T>()})                                  \
  X(NanToNum, kFloating, Same, (NanToNum<T>{p0.to<T>(), p1.to<T>(), p2.to<T>()}))  \
  X(IsInf, kAll, Bool, IsInf<T>{})                                                 \
  X(IsPosInf, kAll, Bool, IsPosInf<T>{})                                           \
  X(IsNegInf, kAll, Bool, IsNegInf<T>{})                                           \
  X(Signbit, kAll, Bool, Signbit<T>{})

// out (bool) = f(a, b), a and b of dtype T.   X(name, dtypes, functor)
#define EMBER_COMPARE_OPS(X)                                \
  X(Eq, kAll, Eq<T>{})                                      \
  X(Ne, kAll, Ne<T>{})                                      \
  X(Lt, kAll, Lt<T>{})                                      \
  X(Le, kAll, Le<T>{})                                      \
  X(Gt, kAll, Gt<T>{})                                      \
  X(Ge, kAll, Ge<T>{})                                      \
  X(IsClose, kAll, (IsClose<T>{rtol, atol, equal_nan}))     \
  X(LogicalAnd, kAll, LogicalAnd<T>{})                      \
  X(LogicalOr, kAll, LogicalOr<T>{})                        \
  X(LogicalXor, kAll, LogicalXor<T>{})

// out = f(a, b, c), all of dtype T.   X(name, dtypes, functor)
#define EMBER_TERNARY_OPS(X)                       \
  X(Lerp, kFloating, Lerp<T>{})                    \
  X(Addcmul, kNumeric, Addcmul<T>{value.to<T>()})  \
  X(Addcdiv, kFloating, Addcdiv<T>{value.to<T>()})

// The per-element losses of nn/functional/loss.cpp and log_sigmoid: out =
// f(inputs...), all of a floating dtype T.   X(name, number of inputs, functor)
#define EMBER_LOSS_OPS(X)                                       \
  X(LogSigmoid, 1, LogSigmoid<T>{})                             \
  X(BinaryCrossEntropy, 2, BinaryCrossEntropy<T>{})             \
  X(BinaryCrossEntropyWithLogits, 3, BinaryCrossEntropyWithLogits<T>{})

namespace ember {

#define EMBER_OP_ENUMERATOR(name, ...) k##name,
#define EMBER_OP_COUNT(...) +1
#define EMBER_OP_NAME(name, ...) #name,

enum class BinaryOp { EMBER_BINARY_OPS(EMBER_OP_ENUMERATOR) };
enum class UnaryOp { EMBER_UNARY_OPS(EMBER_OP_ENUMERATOR) };
enum class CompareOp { EMBER_COMPARE_OPS(EMBER_OP_ENUMERATOR) };
enum class TernaryOp { EMBER_TERNARY_OPS(EMBER_OP_ENUMERATOR) };
enum class LossOp { EMBER_LOSS_OPS(EMBER_OP_ENUMERATOR) };

constexpr int kNumBinaryOps = 0 EMBER_BINARY_OPS(EMBER_OP_COUNT);
constexpr int kNumUnaryOps = 0 EMBER_UNARY_OPS(EMBER_OP_COUNT);
constexpr int kNumCompareOps = 0 EMBER_COMPARE_OPS(EMBER_OP_COUNT);
constexpr int kNumTernaryOps = 0 EMBER_TERNARY_OPS(EMBER_OP_COUNT);
constexpr int kNumLossOps = 0 EMBER_LOSS_OPS(EMBER_OP_COUNT);
// A row added or removed must be seen by whoever reads these counts (the
// dtype tests iterate over them; docs/adding-an-op.md quotes them).
static_assert(kNumBinaryOps == 21 && kNumUnaryOps == 53 && kNumCompareOps == 10 &&
                  kNumTernaryOps == 3 && kNumLossOps == 3,
              "an elementwise op table changed: update the counts here");

// The row names ("Add", "Exp", ...), indexed by the enum.
inline constexpr const char* kBinaryOpNames[] = {EMBER_BINARY_OPS(EMBER_OP_NAME)};
inline constexpr const char* kUnaryOpNames[] = {EMBER_UNARY_OPS(EMBER_OP_NAME)};
inline constexpr const char* kCompareOpNames[] = {EMBER_COMPARE_OPS(EMBER_OP_NAME)};
inline constexpr const char* kTernaryOpNames[] = {EMBER_TERNARY_OPS(EMBER_OP_NAME)};
inline constexpr const char* kLossOpNames[] = {EMBER_LOSS_OPS(EMBER_OP_NAME)};

#undef EMBER_OP_ENUMERATOR
#undef EMBER_OP_COUNT
#undef EMBER_OP_NAME

// The dtypes each op's kernel takes.
#define EMBER_OP_DTYPES(name, dtypes, ...) DtypeSet::dtypes,
inline constexpr DtypeSet kBinaryOpDtypes[] = {EMBER_BINARY_OPS(EMBER_OP_DTYPES)};
inline constexpr DtypeSet kUnaryOpDtypes[] = {EMBER_UNARY_OPS(EMBER_OP_DTYPES)};
inline constexpr DtypeSet kCompareOpDtypes[] = {EMBER_COMPARE_OPS(EMBER_OP_DTYPES)};
inline constexpr DtypeSet kTernaryOpDtypes[] = {EMBER_TERNARY_OPS(EMBER_OP_DTYPES)};
#undef EMBER_OP_DTYPES

// How many inputs each loss takes.
#define EMBER_LOSS_ARITY(name, arity, ...) arity,
inline constexpr int kLossOpArity[] = {EMBER_LOSS_OPS(EMBER_LOSS_ARITY)};
#undef EMBER_LOSS_ARITY

// A unary op's result dtype: x's (Same) or bool (Bool, the predicates).
enum class UnaryOut { Same, Bool };
#define EMBER_UNARY_OUT(name, dtypes, out, ...) UnaryOut::out,
inline constexpr UnaryOut kUnaryOpOut[] = {EMBER_UNARY_OPS(EMBER_UNARY_OUT)};
#undef EMBER_UNARY_OUT
// The C++ type of a unary op's result for compute type T.
template <UnaryOut Out, typename T>
using unary_out_t = std::conditional_t<Out == UnaryOut::Bool, bool, T>;

// The enum of a functor template: BinaryOpOf<functors::Add>::value ==
// BinaryOp::kAdd. A functor without a row has no value and does not compile.
template <template <typename> class Op>
struct BinaryOpOf;
template <template <typename> class Op>
struct UnaryOpOf;
template <template <typename> class Op>
struct CompareOpOf;
template <template <typename> class Op>
struct TernaryOpOf;
#define EMBER_BINARY_TRAIT(name, ...) \
  template <> struct BinaryOpOf<functors::name> { static constexpr BinaryOp value = BinaryOp::k##name; };
#define EMBER_UNARY_TRAIT(name, ...) \
  template <> struct UnaryOpOf<functors::name> { static constexpr UnaryOp value = UnaryOp::k##name; };
#define EMBER_COMPARE_TRAIT(name, ...) \
  template <> struct CompareOpOf<functors::name> { static constexpr CompareOp value = CompareOp::k##name; };
#define EMBER_TERNARY_TRAIT(name, ...) \
  template <> struct TernaryOpOf<functors::name> { static constexpr TernaryOp value = TernaryOp::k##name; };
EMBER_BINARY_OPS(EMBER_BINARY_TRAIT)
EMBER_UNARY_OPS(EMBER_UNARY_TRAIT)
EMBER_COMPARE_OPS(EMBER_COMPARE_TRAIT)
EMBER_TERNARY_OPS(EMBER_TERNARY_TRAIT)
#undef EMBER_BINARY_TRAIT
#undef EMBER_UNARY_TRAIT
#undef EMBER_COMPARE_TRAIT
#undef EMBER_TERNARY_TRAIT

}  // namespace ember
