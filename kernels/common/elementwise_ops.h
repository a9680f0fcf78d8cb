#pragma once
// Note [Elementwise op tables]
// The one list of the elementwise kernels' ops, per family: each row names
// the op, the dtypes its kernel takes and the functor it computes with. The
// rows sit next to their functors, at the end of each kernels/common/
// *_functors.h (EMBER_POINTWISE_BINARY_ROWS, ...); the lists below join them
// per family. Everything else is generated from these rows:
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
// Adding an elementwise op with an existing shape of functor: its functor and
// its row in a *_functors.h, and its op function in core/ops.
#include <iterator>
#include <type_traits>

#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/compare_functors.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/loss_functors.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/special_functors.h"
#include "ember/kernels/common/unary_functors.h"

// out = f(a, b), all of dtype T.      X(name, dtypes, functor)
#define EMBER_BINARY_OPS(X) \
  EMBER_ARITHMETIC_BINARY_ROWS(X) EMBER_MATH_BINARY_ROWS(X) EMBER_POINTWISE_BINARY_ROWS(X)

// out = f(x), x of dtype T; out of dtype T (Same) or bool (Bool).
//                                     X(name, dtypes, out, functor)
#define EMBER_UNARY_OPS(X) \
  EMBER_MATH_UNARY_ROWS(X) EMBER_SPECIAL_UNARY_ROWS(X) EMBER_POINTWISE_UNARY_ROWS(X)

// out (bool) = f(a, b), a and b of dtype T.   X(name, dtypes, functor)
#define EMBER_COMPARE_OPS(X) EMBER_COMPARE_ROWS(X)

// out = f(a, b, c), all of dtype T.   X(name, dtypes, functor)
#define EMBER_TERNARY_OPS(X) EMBER_POINTWISE_TERNARY_ROWS(X)

// The per-element losses of nn/functional/loss.cpp and log_sigmoid: out =
// f(inputs...), all of a floating dtype T.   X(name, number of inputs, functor)
#define EMBER_LOSS_OPS(X) EMBER_LOSS_ROWS(X)

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
// The enums, names and dtype sets are generated separately from the rows: they
// must stay one entry per row, in row order.
static_assert(std::size(kBinaryOpNames) == kNumBinaryOps &&
                  std::size(kBinaryOpDtypes) == kNumBinaryOps &&
                  std::size(kUnaryOpNames) == kNumUnaryOps &&
                  std::size(kUnaryOpDtypes) == kNumUnaryOps &&
                  std::size(kCompareOpNames) == kNumCompareOps &&
                  std::size(kCompareOpDtypes) == kNumCompareOps &&
                  std::size(kTernaryOpNames) == kNumTernaryOps &&
                  std::size(kTernaryOpDtypes) == kNumTernaryOps &&
                  std::size(kLossOpNames) == kNumLossOps,
              "an elementwise op table's generated arrays disagree with its rows");

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
