#pragma once
// Note [Reduce op table]
// The one list of the reductions that the reduce kernels compute
// (kernels/common/reduce_kernels.h, the `reduce` slot): each row names the op,
// the dtypes its kernel takes, the accumulator type, the output dtype and the
// Ops of kernels/common/reduce_functors.h it folds with. From these rows come
// the ReduceOp enum, each op's dtype set and output dtype, and the switch of
// both backends' kernels (kernels/cpu/reduce.cpp, kernels/cuda/reduce_sum.cu),
// which dispatch with dispatch_dtypes on the row's set, so the CPU and CUDA
// kernels accept the same dtypes by construction.
//
// In a row's Ops expression, T is the input's type, Acc and Out the row's
// accumulator and output types, and `param` (double) the op's parameter:
// mean's count, var's and std's divisor, a p-norm's p.
//
// The kAbs* rows (float64 results) are clip_grad_norm_'s per-gradient parts;
// the abs_pow_sum slot picks one of them by p.
#include <cstdint>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/reduce_functors.h"

// X(name, dtypes, Acc, out, Ops); out: a ReduceOut (below).
#define EMBER_REDUCE_OPS(X)                                                      \
  X(Sum, kAll, sum_acc_t<T>, Widened, (SumOps<T, Acc, Out>{}))                   \
  X(Prod, kAll, sum_acc_t<T>, Widened, (ProdOps<T, Acc, Out>{}))                 \
  X(Mean, kFloating, double, Same, (MeanOps<T, Acc, Out>{{}, param}))            \
  X(Var, kFloating, double, Same, (VarOps<T, Acc, Out>{param, false}))           \
  X(Std, kFloating, double, Same, (VarOps<T, Acc, Out>{param, true}))            \
  X(Norm1, kFloating, double, Same, (Norm1Ops<T, Acc, Out>{}))                   \
  X(Norm2, kFloating, double, Same, (Norm2Ops<T, Acc, Out>{}))                   \
  X(NormP, kFloating, double, Same, (NormPOps<T, Acc, Out>{{}, param}))          \
  X(Max, kAll, T, Same, MaxOps<T>{})                                             \
  X(Min, kAll, T, Same, MinOps<T>{})                                             \
  X(All, kAll, bool, Bool, AllOps<T>{})                                          \
  X(Any, kAll, bool, Bool, AnyOps<T>{})                                          \
  X(AbsSum, kFloating, double, Double, (Norm1Ops<T, Acc, Out>{}))                \
  X(SquareSum, kFloating, double, Double, (SquareSumOps<T, Acc, Out>{}))         \
  X(AbsPowSum, kFloating, double, Double, (AbsPowSumOps<T, Acc, Out>{{}, param})) \
  X(AbsMax, kFloating, double, Double, (AbsMaxOps<T, Acc>{}))

namespace ember {

#define EMBER_OP_ENUMERATOR(name, ...) k##name,
#define EMBER_OP_COUNT(...) +1
#define EMBER_OP_NAME(name, ...) #name,
#define EMBER_OP_DTYPES(name, dtypes, ...) DtypeSet::dtypes,
#define EMBER_REDUCE_OUT(name, dtypes, acc, out, ...) ReduceOut::out,

enum class ReduceOp { EMBER_REDUCE_OPS(EMBER_OP_ENUMERATOR) };
constexpr int kNumReduceOps = 0 EMBER_REDUCE_OPS(EMBER_OP_COUNT);
// A row added or removed must be seen by whoever reads this count (the dtype
// tests iterate over it).
static_assert(kNumReduceOps == 16, "the reduce op table changed: update the count here");

// The row names ("Sum", ...), indexed by the enum.
inline constexpr const char* kReduceOpNames[] = {EMBER_REDUCE_OPS(EMBER_OP_NAME)};
// The dtypes each op's kernel takes.
inline constexpr DtypeSet kReduceOpDtypes[] = {EMBER_REDUCE_OPS(EMBER_OP_DTYPES)};

// A reduction's output dtype: the input's (Same); the input's when floating,
// else int64 (Widened: integer and bool sums and products, as PyTorch);
// bool; or float64 (Double).
enum class ReduceOut { Same, Widened, Bool, Double };
inline constexpr ReduceOut kReduceOpOut[] = {EMBER_REDUCE_OPS(EMBER_REDUCE_OUT)};

#undef EMBER_OP_ENUMERATOR
#undef EMBER_OP_COUNT
#undef EMBER_OP_NAME
#undef EMBER_OP_DTYPES
#undef EMBER_REDUCE_OUT

// The C++ output type of a row for input type T.
template <ReduceOut Out, typename T>
using reduce_out_t = std::conditional_t<
    Out == ReduceOut::Same, T,
    std::conditional_t<Out == ReduceOut::Widened,
                       std::conditional_t<std::is_floating_point_v<T>, T, int64_t>,
                       std::conditional_t<Out == ReduceOut::Bool, bool, double>>>;

// The output dtype of `op` on an input of dtype `in`: what the op allocates.
constexpr ScalarType reduce_out_dtype(ReduceOp op, ScalarType in) {
  switch (kReduceOpOut[static_cast<int>(op)]) {
    case ReduceOut::Same: return in;
    case ReduceOut::Widened: return is_floating_point(in) ? in : kLong;
    case ReduceOut::Bool: return kBool;
    case ReduceOut::Double: return kDouble;
  }
  return in;
}

}  // namespace ember
