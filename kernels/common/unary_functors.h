#pragma once
// Unary elementwise maths, shared by the CPU loops and the CUDA kernels. T is
// the dtype the op computes in: float32/float64 for the transcendental
// functions, also int64 (and bool where PyTorch allows it) for the rest.
#include <math.h>

#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/wrapping.h"

namespace ember::functors {

// The C maths function of T's precision (expf for float, exp for double), so
// float32 kernels never round-trip through double. Both names exist on the
// host and in CUDA device code.
namespace math {
#define EMBER_UNARY_MATH(name)              \
  template <typename T>                     \
  EMBER_HOST_DEVICE T name(T x) {           \
    if constexpr (std::is_same_v<T, float>) \
      return ::name##f(x);                  \
    else                                    \
      return ::name(x);                     \
  }
EMBER_UNARY_MATH(exp)
EMBER_UNARY_MATH(log)
EMBER_UNARY_MATH(sqrt)
EMBER_UNARY_MATH(tanh)
EMBER_UNARY_MATH(erf)
EMBER_UNARY_MATH(erfc)
EMBER_UNARY_MATH(lgamma)
EMBER_UNARY_MATH(fabs)
EMBER_UNARY_MATH(sin)
EMBER_UNARY_MATH(cos)
EMBER_UNARY_MATH(tan)
EMBER_UNARY_MATH(asin)
EMBER_UNARY_MATH(acos)
EMBER_UNARY_MATH(atan)
EMBER_UNARY_MATH(sinh)
EMBER_UNARY_MATH(cosh)
EMBER_UNARY_MATH(log1p)
EMBER_UNARY_MATH(expm1)
EMBER_UNARY_MATH(log2)
EMBER_UNARY_MATH(log10)
EMBER_UNARY_MATH(floor)
EMBER_UNARY_MATH(ceil)
EMBER_UNARY_MATH(rint)
EMBER_UNARY_MATH(trunc)
#undef EMBER_UNARY_MATH
}  // namespace math

// sqrt(1/2) and sqrt(2/pi), for the normal CDF and gelu's tanh form.
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluTanhCubic = 0.044715;

template <typename T>
struct Neg {
  EMBER_HOST_DEVICE T operator()(T x) const { return wrapping_neg(x); }
};
template <typename T>
struct Exp {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::exp(x); }
};
template <typename T>
struct Log {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::log(x); }
};
template <typename T>
struct Sqrt {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::sqrt(x); }
};
template <typename T>
struct Rsqrt {
  EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / math::sqrt(x); }
};
template <typename T>
struct Abs {
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x < 0 ? wrapping_neg(x) : x;  // abs(INT64_MIN) = INT64_MIN, as PyTorch
    else
      return math::fabs(x);
  }
};
// -1, 0 or 1 (0 for NaN, as torch.sign); bool maps to itself.
template <typename T>
struct Sign {
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else
      return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
template <typename T>
struct Square {
  EMBER_HOST_DEVICE T operator()(T x) const { return wrapping_mul(x, x); }
};
template <typename T>
struct Reciprocal {
  EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / x; }
};
// NaN propagates (x < 0 is false for NaN), as torch.relu.
template <typename T>
struct Relu {
  EMBER_HOST_DEVICE T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
// relu's derivative applied to g, from relu's output y: 0 where y <= 0, else
// g (so a NaN passes g on, as PyTorch's threshold_backward).
template <typename T>
struct ReluBackward {
  EMBER_HOST_DEVICE T operator()(T g, T y) const { return y <= T(0) ? T(0) : g; }
};
template <typename T>
struct LeakyRelu {
  T negative_slope;
  EMBER_HOST_DEVICE T operator()(T x) const { return x > T(0) ? x : x * negative_slope; }
};
template <typename T>
struct Sigmoid {
  EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / (T(1) + math::exp(-x)); }
};
template <typename T>
struct Tanh {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::tanh(x); }
};
// The floating maths of unary_math.cpp: one functor per C maths function.
#define EMBER_MATH_FUNCTOR(Name, fn)                                      \
  template <typename T>                                                   \
  struct Name {                                                           \
    EMBER_HOST_DEVICE T operator()(T x) const { return math::fn(x); } \
  };
EMBER_MATH_FUNCTOR(Sin, sin)
EMBER_MATH_FUNCTOR(Cos, cos)
EMBER_MATH_FUNCTOR(Tan, tan)
EMBER_MATH_FUNCTOR(Asin, asin)
EMBER_MATH_FUNCTOR(Acos, acos)
EMBER_MATH_FUNCTOR(Atan, atan)
EMBER_MATH_FUNCTOR(Sinh, sinh)
EMBER_MATH_FUNCTOR(Cosh, cosh)
EMBER_MATH_FUNCTOR(Log1p, log1p)
EMBER_MATH_FUNCTOR(Expm1, expm1)
EMBER_MATH_FUNCTOR(Log2, log2)
EMBER_MATH_FUNCTOR(Log10, log10)
EMBER_MATH_FUNCTOR(Floor, floor)
EMBER_MATH_FUNCTOR(Ceil, ceil)
EMBER_MATH_FUNCTOR(Round, rint)  // halves to even (in the default rounding mode), as torch.round
EMBER_MATH_FUNCTOR(Trunc, trunc)
#undef EMBER_MATH_FUNCTOR
// x - trunc(x): keeps x's sign; inf gives NaN, as torch.frac.
template <typename T>
struct Frac {
  EMBER_HOST_DEVICE T operator()(T x) const { return x - math::trunc(x); }
};
// Phi(x), the standard normal CDF: gelu(x) = x * Phi(x).
template <typename T>
struct NormalCdf {
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * (T(1) + math::erf(x * T(kSqrtHalf)));
  }
};
template <typename T>
struct Gelu {
  EMBER_HOST_DEVICE T operator()(T x) const { return x * NormalCdf<T>{}(x); }
};
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
template <typename T>
struct GeluTanh {
  EMBER_HOST_DEVICE T operator()(T x) const {
    const T inner = T(kSqrt2OverPi) * (x + T(kGeluTanhCubic) * x * x * x);
    return T(0.5) * x * (T(1) + math::tanh(inner));
  }
};
// min(max(x, lo), hi): lo > hi gives hi everywhere and NaN propagates, a NaN bound
// included (PyTorch 2; 1.13 ignored a NaN scalar bound).
template <typename T>
struct Clamp {
  T lo, hi;
  EMBER_HOST_DEVICE T operator()(T x) const {
    if (lo != lo || hi != hi) return lo != lo ? lo : hi;  // a NaN bound: NaN, as PyTorch
    const T y = x < lo ? lo : x;
    return y > hi ? hi : y;
  }
};
// Where clamp passes the gradient: lo <= x <= hi (bounds included, as PyTorch).
template <typename T>
struct InRange {
  T lo, hi;
  EMBER_HOST_DEVICE bool operator()(T x) const { return lo <= x && x <= hi; }
};

// Predicates: T -> bool. x != x is the NaN test that also compiles for CUDA;
// x - x is 0 for finite x and NaN for inf and NaN.
template <typename T>
struct IsNan {
  EMBER_HOST_DEVICE bool operator()(T x) const { return x != x; }
};
template <typename T>
struct IsFinite {
  EMBER_HOST_DEVICE bool operator()(T x) const { return x - x == T(0); }
};
template <typename T>
struct LogicalNot {
  EMBER_HOST_DEVICE bool operator()(T x) const { return x == T(0); }
};

// Bool and integer only: ~ on bool is logical not (~true would be -2 as int).
template <typename T>
struct BitwiseNot {
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else return ~x;
  }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out = f(a, b), all of dtype T.   X(name, dtypes, functor)
#define EMBER_MATH_BINARY_ROWS(X)                \
  X(ReluBackward, kFloating, ReluBackward<T>{})

// out = f(x), x of dtype T; out of dtype T (Same) or bool (Bool).
//   X(name, dtypes, out, functor)
#define EMBER_MATH_UNARY_ROWS(X)                                     \
  X(Neg, kNumeric, Same, Neg<T>{})                                   \
  X(Exp, kFloating, Same, Exp<T>{})                                  \
  X(Log, kFloating, Same, Log<T>{})                                  \
  X(Sqrt, kFloating, Same, Sqrt<T>{})                                \
  X(Rsqrt, kFloating, Same, Rsqrt<T>{})                              \
  X(Abs, kNumeric, Same, Abs<T>{})                                   \
  X(Sign, kAll, Same, Sign<T>{})                                     \
  X(Square, kNumeric, Same, Square<T>{})                             \
  X(Reciprocal, kFloating, Same, Reciprocal<T>{})                    \
  X(Relu, kNumeric, Same, Relu<T>{})                                 \
  X(LeakyRelu, kFloating, Same, LeakyRelu<T>{p0.to<T>()})            \
  X(Sigmoid, kFloating, Same, Sigmoid<T>{})                          \
  X(Tanh, kFloating, Same, Tanh<T>{})                                \
  X(NormalCdf, kFloating, Same, NormalCdf<T>{})                      \
  X(Gelu, kFloating, Same, Gelu<T>{})                                \
  X(GeluTanh, kFloating, Same, GeluTanh<T>{})                        \
  X(Clamp, kNumeric, Same, (Clamp<T>{p0.to<T>(), p1.to<T>()}))       \
  X(InRange, kFloating, Bool, (InRange<T>{p0.to<T>(), p1.to<T>()}))  \
  X(IsNan, kAll, Bool, IsNan<T>{})                                   \
  X(IsFinite, kAll, Bool, IsFinite<T>{})                             \
  X(LogicalNot, kAll, Bool, LogicalNot<T>{})                         \
  X(Sin, kFloating, Same, Sin<T>{})                                  \
  X(Cos, kFloating, Same, Cos<T>{})                                  \
  X(Tan, kFloating, Same, Tan<T>{})                                  \
  X(Asin, kFloating, Same, Asin<T>{})                                \
  X(Acos, kFloating, Same, Acos<T>{})                                \
  X(Atan, kFloating, Same, Atan<T>{})                                \
  X(Sinh, kFloating, Same, Sinh<T>{})                                \
  X(Cosh, kFloating, Same, Cosh<T>{})                                \
  X(Log1p, kFloating, Same, Log1p<T>{})                              \
  X(Expm1, kFloating, Same, Expm1<T>{})                              \
  X(Log2, kFloating, Same, Log2<T>{})                                \
  X(Log10, kFloating, Same, Log10<T>{})                              \
  X(Floor, kFloating, Same, Floor<T>{})                              \
  X(Ceil, kFloating, Same, Ceil<T>{})                                \
  X(Round, kFloating, Same, Round<T>{})                              \
  X(Trunc, kFloating, Same, Trunc<T>{})                              \
  X(Frac, kFloating, Same, Frac<T>{})                                \
  X(BitwiseNot, kIntegral, Same, BitwiseNot<T>{})
