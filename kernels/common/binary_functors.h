#pragma once
// Binary elementwise maths, shared by the CPU loops and the CUDA kernels.
#include <cmath>
#include <type_traits>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

template <typename T>
struct Add {
  T alpha;
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a + alpha * b; }
};
template <>
struct Add<bool> {  // bool + bool is logical or, as PyTorch
  bool alpha;
  EMBER_HOST_DEVICE bool operator()(bool a, bool b) const { return a || (alpha && b); }
};
template <typename T>
struct Sub {
  T alpha;
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a - alpha * b; }
};
template <typename T>
struct Mul {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a * b; }
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
    } else if constexpr (std::is_integral_v<T>) {  // exact; negative exponents give 0 (|a|>1)
      T result = 1;
      if (b < 0) return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
      for (T e = b, x = a; e > 0; e >>= 1, x *= x)
        if (e & 1) result *= x;
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

}  // namespace ember::functors
