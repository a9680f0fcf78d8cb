#pragma once
// Comparisons (T, T) -> bool, shared by the CPU loops and the CUDA kernels. T
// is the promoted dtype both operands were cast to. NaN compares unequal to
// everything, itself included (IEEE), so ne is the only one true for NaN.
#include "ember/kernels/common/macros.h"

namespace ember::functors {

template <typename T>
struct Eq {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a == b; }
};
template <typename T>
struct Ne {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a != b; }
};
template <typename T>
struct Lt {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a < b; }
};
template <typename T>
struct Le {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a <= b; }
};
template <typename T>
struct Gt {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a > b; }
};
template <typename T>
struct Ge {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a >= b; }
};
// |a - b| <= atol + rtol |b| in float64, as torch.isclose: a == b covers
// equal infinities; otherwise the difference must be finite (diff - diff is
// NaN for inf and NaN), so inf is never close to a number. Two NaNs are close
// only with equal_nan.
template <typename T>
struct IsClose {
  double rtol, atol;
  bool equal_nan = false;
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    if (x == y || (equal_nan && x != x && y != y)) return true;
    const double diff = x > y ? x - y : y - x;
    return diff - diff == 0 && diff <= atol + rtol * (y < 0 ? -y : y);
  }
};

// Logical ops: nonzero is true.
template <typename T>
struct LogicalAnd {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a != T(0) && b != T(0); }
};
template <typename T>
struct LogicalOr {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return a != T(0) || b != T(0); }
};
template <typename T>
struct LogicalXor {
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return (a != T(0)) != (b != T(0)); }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out (bool) = f(a, b), a and b of dtype T.   X(name, dtypes, functor)
#define EMBER_COMPARE_ROWS(X)                 \
  X(Eq, kAll, Eq<T>{})                                   \
  X(Ne, kAll, Ne<T>{})                                   \
  X(Lt, kAll, Lt<T>{})                                   \
  X(Le, kAll, Le<T>{})                                   \
  X(Gt, kAll, Gt<T>{})                                   \
  X(Ge, kAll, Ge<T>{})                                   \
  X(IsClose, kAll, (IsClose<T>{rtol, atol, equal_nan}))  \
  X(LogicalAnd, kAll, LogicalAnd<T>{})                   \
  X(LogicalOr, kAll, LogicalOr<T>{})                     \
  X(LogicalXor, kAll, LogicalXor<T>{})
