#pragma once
// The per-element maths of core/ops/elementwise/pointwise_extras.cpp, pointwise_binary.cpp
// and pointwise_ternary.cpp, shared by the CPU loops and the CUDA kernels.
#include <math.h>

#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/unary_functors.h"

namespace ember::functors {

namespace pointwise {
constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;

template <typename T>
EMBER_HOST_DEVICE T exp2(T x) {
  if constexpr (std::is_same_v<T, float>) return ::exp2f(x);
  else return ::exp2(x);
}
template <typename T>
EMBER_HOST_DEVICE T hypot(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::hypotf(a, b);
  else return ::hypot(a, b);
}
template <typename T>
EMBER_HOST_DEVICE T copysign(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::copysignf(a, b);
  else return ::copysign(a, b);
}
}  // namespace pointwise

// ---- unary (floating T unless said) ----

template <typename T>
struct Exp2 {
  EMBER_HOST_DEVICE T operator()(T x) const { return pointwise::exp2(x); }
};
// sin(pi x) / (pi x), 1 at 0.
template <typename T>
struct Sinc {
  EMBER_HOST_DEVICE T operator()(T x) const {
    if (x == T(0)) return T(1);
    const T px = T(pointwise::kPi) * x;
    return math::sin(px) / px;
  }
};
// log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps >= 0 (eps < 0:
// no clamp, torch.logit's eps=None).
template <typename T>
struct Logit {
  T eps;
  EMBER_HOST_DEVICE T operator()(T x) const {
    const T z = eps < T(0) ? x : (x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x));
    return math::log(z / (T(1) - z));
  }
};
template <typename T>
struct NanToNum {
  T nan, posinf, neginf;
  EMBER_HOST_DEVICE T operator()(T x) const {
    if (x != x) return nan;
    if (x - x == T(0)) return x;  // finite
    return x > T(0) ? posinf : neginf;
  }
};

// Predicates, any T: x - x is NaN exactly for +-inf and NaN, and 0 for
// integers and bool.
template <typename T>
struct IsInf {
  EMBER_HOST_DEVICE bool operator()(T x) const { return x == x && x - x != x - x; }
};
template <typename T>
struct IsPosInf {
  EMBER_HOST_DEVICE bool operator()(T x) const { return IsInf<T>{}(x) && x > T(0); }
};
template <typename T>
struct IsNegInf {
  EMBER_HOST_DEVICE bool operator()(T x) const { return IsInf<T>{}(x) && x < T(0); }
};
// The sign bit: true for -0.0 (and a negative NaN), as torch.signbit.
template <typename T>
struct Signbit {
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) return pointwise::copysign(T(1), x) < T(0);
    else if constexpr (std::is_same_v<T, bool>) return false;
    else return x < T(0);
  }
};

// ---- binary (floating T unless said) ----

template <typename T>
struct Hypot {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return pointwise::hypot(a, b); }
};
// x log(y), 0 where x == 0 (even for y = 0 or inf), NaN where y is NaN.
template <typename T>
struct Xlogy {
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if (y != y) return y;
    if (x == T(0)) return T(0);
    return x * math::log(y);
  }
};
template <typename T>
struct Copysign {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return pointwise::copysign(a, b); }
};
// log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities return
// themselves (inf - inf would be NaN); NaN propagates.
template <typename T>
struct LogAddExp {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if (a == b && a - a != a - a) return a;
    const T m = a > b ? a : b, d = a > b ? b - a : a - b;
    return m + math::log1p(math::exp(d));
  }
};
// log2(2^a + 2^b), as LogAddExp in base 2.
template <typename T>
struct LogAddExp2 {
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if (a == b && a - a != a - a) return a;
    const T m = a > b ? a : b, d = a > b ? b - a : a - b;
    return m + math::log1p(pointwise::exp2(d)) / T(pointwise::kLn2);
  }
};
// 0 for x < 0, v for x == 0, 1 for x > 0 (0 for NaN, as torch.heaviside). Any T.
template <typename T>
struct Heaviside {
  EMBER_HOST_DEVICE T operator()(T x, T v) const {
    return x == T(0) ? v : static_cast<T>(x > T(0));
  }
};

// ---- ternary ----

// a + w (b - a), from the nearer end: exact at w = 0 and w = 1. Floating T.
template <typename T>
struct Lerp {
  EMBER_HOST_DEVICE T operator()(T a, T b, T w) const {
    const T d = b - a;
    return (w < T(0.5) && w > T(-0.5)) ? a + w * d : b - d * (T(1) - w);
  }
};
// s + value a b: int64 or floating T.
template <typename T>
struct Addcmul {
  T value;
  EMBER_HOST_DEVICE T operator()(T s, T a, T b) const { return s + value * a * b; }
};
// s + value a / b: floating T.
template <typename T>
struct Addcdiv {
  T value;
  EMBER_HOST_DEVICE T operator()(T s, T a, T b) const { return s + value * a / b; }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out = f(a, b), all of dtype T.   X(name, dtypes, functor)
#define EMBER_POINTWISE_BINARY_ROWS(X)       \
  X(Hypot, kFloating, Hypot<T>{})            \
  X(Xlogy, kFloating, Xlogy<T>{})            \
  X(Copysign, kFloating, Copysign<T>{})      \
  X(LogAddExp, kFloating, LogAddExp<T>{})    \
  X(LogAddExp2, kFloating, LogAddExp2<T>{})  \
  X(Heaviside, kAll, Heaviside<T>{})

// out = f(x), x of dtype T; out of dtype T (Same) or bool (Bool).
//   X(name, dtypes, out, functor)
#define EMBER_POINTWISE_UNARY_ROWS(X)                                              \
  X(Exp2, kFloating, Same, Exp2<T>{})                                              \
  X(Sinc, kFloating, Same, Sinc<T>{})                                              \
  X(Logit, kFloating, Same, Logit<T>{p0.to<T>()})                                  \
  X(NanToNum, kFloating, Same, (NanToNum<T>{p0.to<T>(), p1.to<T>(), p2.to<T>()}))  \
  X(IsInf, kAll, Bool, IsInf<T>{})                                                 \
  X(IsPosInf, kAll, Bool, IsPosInf<T>{})                                           \
  X(IsNegInf, kAll, Bool, IsNegInf<T>{})                                           \
  X(Signbit, kAll, Bool, Signbit<T>{})

// out = f(a, b, c), all of dtype T.   X(name, dtypes, functor)
#define EMBER_POINTWISE_TERNARY_ROWS(X)             \
  X(Lerp, kFloating, Lerp<T>{})                     \
  X(Addcmul, kNumeric, Addcmul<T>{value.to<T>()})   \
  X(Addcdiv, kFloating, Addcdiv<T>{value.to<T>()})
