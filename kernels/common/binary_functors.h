#pragma once
// Binary elementwise maths, shared by the CPU loops and the CUDA kernels.
#include <cmath>
#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/wrapping.h"

namespace ember::functors {

template <typename T>
struct Add {
  T alpha;
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return wrapping_add(a, wrapping_mul(alpha, b)); }
};
template <>
struct Add<bool> {  // bool + bool is logical or, as PyTorch
  bool alpha;
  EMBER_HOST_DEVICE bool operator()(bool a, bool b) const { return a || (alpha && b); }
};
template <typename T>
struct Sub {
  T alpha;
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return wrapping_sub(a, wrapping_mul(alpha, b)); }
};
template <typename T>
struct Mul {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return wrapping_mul(a, b); }
};
template <>
struct Mul<bool> {
  EMBER_HOST_DEVICE bool operator()(bool a, bool b) const { return a && b; }
};
template <typename T>
struct Div {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a / b; }
};
template <typename T>
struct Pow {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {  // a^0 = 1, a^1 = a
      return a || !b;
    } else if constexpr (std::is_integral_v<T>) {  // wraps; negative exponents give 0 (|a|>1)
      T result = 1;
      if (b < 0) return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
      for (T e = b, x = a; e > 0; e >>= 1, x = wrapping_mul(x, x))
        if (e & 1) result = wrapping_mul(result, x);
      return result;
    } else {
      return ::pow(a, b);
    }
  }
};
// NaN propagates, as torch.maximum.
template <typename T>
struct Maximum {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (!std::is_integral_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a > b ? a : b;
  }
};
template <typename T>
struct Minimum {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (!std::is_integral_v<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? a : b;
  }
};

// fmod (C's sign: the dividend's), and remainder and floor_divide (Python's:
// remainder has the divisor's sign, floor_divide rounds down). The integer
// forms expect b != 0: the CPU op checks that first. A signed b = -1 is
// answered apart: INT64_MIN / -1 overflows (undefined; a SIGFPE on x86), while the
// remainder is 0 and the quotient -a wraps, as PyTorch's.
template <typename T>
struct Fmod {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return std::is_signed_v<T> && b == T(-1) ? T(0) : a % b;
    else return ::fmod(a, b);
  }
};
template <typename T>
struct Remainder {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    T m = Fmod<T>{}(a, b);
    // fmod first keeps |m| < |b| exact; moving it to b's side also gives
    // remainder(-3, inf) = inf, as PyTorch.
    if (m != 0 && (m < 0) != (b < 0)) m += b;
    return m;
  }
};
template <typename T>
struct FloorDivide {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (std::is_signed_v<T> && b == T(-1)) return wrapping_neg(a);
      const T q = a / b;
      return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
    } else {
      if (b == 0) return a / b;
      // (a - fmod(a, b)) / b is an integer up to rounding; floor(a / b)
      // alone can be off by one when a / b rounds up to an integer.
      const T m = ::fmod(a, b);
      T q = (a - m) / b;
      if (m != 0 && (m < 0) != (b < 0)) q -= 1;
      if (q == 0) return ::copysign(T(0), a / b);
      const T f = ::floor(q);
      return q - f > T(0.5) ? f + 1 : f;
    }
  }
};
template <typename T>
struct Atan2 {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return ::atan2(a, b); }
};
// Bool and integer operands only.
template <typename T>
struct BitwiseAnd {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a & b; }
};
template <typename T>
struct BitwiseOr {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a | b; }
};
template <typename T>
struct BitwiseXor {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a ^ b; }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out = f(a, b), all of dtype T.   X(name, dtypes, functor)
#define EMBER_ARITHMETIC_BINARY_ROWS(X)              \
  X(Add, kAll, (Add<T>{static_cast<T>(alpha)}))      \
  X(Sub, kNumeric, (Sub<T>{static_cast<T>(alpha)}))  \
  X(Mul, kAll, Mul<T>{})                             \
  X(Div, kFloating, Div<T>{})                        \
  X(Pow, kAll, Pow<T>{})                             \
  X(Maximum, kAll, Maximum<T>{})                     \
  X(Minimum, kAll, Minimum<T>{})                     \
  X(Remainder, kNumeric, Remainder<T>{})             \
  X(Fmod, kNumeric, Fmod<T>{})                       \
  X(FloorDivide, kNumeric, FloorDivide<T>{})         \
  X(Atan2, kFloating, Atan2<T>{})                    \
  X(BitwiseAnd, kIntegral, BitwiseAnd<T>{})          \
  X(BitwiseOr, kIntegral, BitwiseOr<T>{})            \
  X(BitwiseXor, kIntegral, BitwiseXor<T>{})
