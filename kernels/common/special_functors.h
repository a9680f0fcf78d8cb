#pragma once
// The error and gamma functions (erf, erfc, erfinv, lgamma, digamma and its
// derivative trigamma), shared by the CPU loops and the CUDA kernels. T is
// float or double; each computes in T's precision.
#include <math.h>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/unary_functors.h"

namespace ember::functors {

namespace special {
constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // erf'(0)
}  // namespace special

template <typename T>
struct Erf {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::erf(x); }
};
template <typename T>
struct Erfc {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::erfc(x); }
};

// erfinv(y): M. Giles' single-precision approximation ("Approximating the
// erfinv function", GPU Computing Gems, 2011) as the first guess, then Newton
// steps: on erf(x) = |y| near 0, on log erfc(x) = log(1 - |y|) in the tails,
// where 1 - |y| is exact and erf(x) - |y| would cancel. erfinv(+-1) = +-inf, NaN
// outside [-1, 1].
template <typename T>
struct Erfinv {
  EMBER_HOST_DEVICE T operator()(T y) const {
    const T a = math::fabs(y);
    if (!(a < T(1))) return a == T(1) ? ::copysign(T(INFINITY), y) : T(NAN);  // NaN: !(NaN < 1)
    const T w0 = -math::log((T(1) - a) * (T(1) + a));
    T p;
    if (w0 < T(5)) {
      const T w = w0 - T(2.5);
      p = T(2.81022636e-08);
      p = T(3.43273939e-07) + p * w;
      p = T(-3.5233877e-06) + p * w;
      p = T(-4.39150654e-06) + p * w;
      p = T(0.00021858087) + p * w;
      p = T(-0.00125372503) + p * w;
      p = T(-0.00417768164) + p * w;
      p = T(0.246640727) + p * w;
      p = T(1.50140941) + p * w;
    } else {
      const T w = math::sqrt(w0) - T(3);
      p = T(-0.000200214257);
      p = T(0.000100950558) + p * w;
      p = T(0.00134934322) + p * w;
      p = T(-0.00367342844) + p * w;
      p = T(0.00573950773) + p * w;
      p = T(-0.0076224613) + p * w;
      p = T(0.00943887047) + p * w;
      p = T(1.00167406) + p * w;
      p = T(2.83297682) + p * w;
    }
    T x = p * a;
    if (a < T(0.5)) {
      for (int i = 0; i < 2; ++i)
        x -= (math::erf(x) - a) / (T(special::kTwoOverSqrtPi) * math::exp(-x * x));
    } else {
      // Newton on log erfc(x) = log(1 - a): nearly -x^2, so it converges from
      // either side, where Newton on erfc itself overshoots far out.
      const T log_c = math::log(T(1) - a);
      for (int i = 0; i < 4; ++i) {
        const T c = math::erfc(x);
        x += (math::log(c) - log_c) * c / (T(special::kTwoOverSqrtPi) * math::exp(-x * x));
      }
    }
    return ::copysign(x, y);
  }
};

template <typename T>
struct Lgamma {
  EMBER_HOST_DEVICE T operator()(T x) const { return math::lgamma(x); }
};

// digamma = lgamma': the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10,
// then the asymptotic series; negative x by reflection,
// psi(x) = psi(1 - x) - pi / tan(pi x). Poles: NaN at negative integers (and
// -inf), -inf at +0 and +inf at -0, as torch.digamma.
template <typename T>
struct Digamma {
  EMBER_HOST_DEVICE T operator()(T x) const {
    if (x == T(0)) return ::copysign(T(INFINITY), -x);
    T reflected = 0;
    if (x < T(0)) {
      if (x == math::trunc(x)) return T(NAN);
      reflected = -T(special::kPi) / math::tan(T(special::kPi) * x);
      x = T(1) - x;
    }
    T result = 0;
    for (; x < T(10); x += T(1)) result -= T(1) / x;
    const T z = T(1) / (x * x);
    // -sum B_2k / (2k x^2k), k = 1..6
    const T series =
        z * (T(1) / 12 -
             z * (T(1) / 120 -
                  z * (T(1) / 252 - z * (T(1) / 240 - z * (T(1) / 132 - z * T(691) / 32760)))));
    return reflected + result + math::log(x) - T(0.5) / x - series;
  }
};

// trigamma = digamma': the recurrence psi1(x) = psi1(x + 1) + 1/x^2 up to
// x >= 10, then the asymptotic series; negative x by reflection,
// psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x).
template <typename T>
struct Trigamma {
  EMBER_HOST_DEVICE T operator()(T x) const {
    T sign = 1, result = 0;
    if (x < T(0.5)) {
      const T s = math::sin(T(special::kPi) * x);
      result = T(special::kPi * special::kPi) / (s * s);
      sign = -1;
      x = T(1) - x;
    }
    T sum = 0;
    for (; x < T(10); x += T(1)) sum += T(1) / (x * x);
    const T r = T(1) / x, z = r * r;
    // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1), k = 1..5
    const T series =
        r + z / 2 +
        r * z * (T(1) / 6 - z * (T(1) / 30 - z * (T(1) / 42 - z * (T(1) / 30 - z * T(5) / 66))));
    return result + sign * (sum + series);
  }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out = f(x), x of dtype T; out of dtype T (Same) or bool (Bool).
//   X(name, dtypes, out, functor)
#define EMBER_SPECIAL_UNARY_ROWS(X)            \
  X(Erf, kFloating, Same, Erf<T>{})            \
  X(Erfc, kFloating, Same, Erfc<T>{})          \
  X(Erfinv, kFloating, Same, Erfinv<T>{})      \
  X(Lgamma, kFloating, Same, Lgamma<T>{})      \
  X(Digamma, kFloating, Same, Digamma<T>{})    \
  X(Trigamma, kFloating, Same, Trigamma<T>{})
