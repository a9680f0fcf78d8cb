#pragma once
// Integer +, - and * that wrap modulo 2^bits (two's complement), as PyTorch's
// integer arithmetic does, instead of a signed overflow, which C++ leaves
// undefined. The arithmetic runs in an unsigned type, whose overflow is
// defined, and converts back (modular since C++20). Types narrower than
// `unsigned` compute in `unsigned`: promoted to int, uint16 * uint16 could
// overflow. Floating types and bool use the plain operators.
#include <type_traits>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

template <typename T>
inline constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
using wrap_unsigned_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
EMBER_HOST_DEVICE T wrapping_add(T a, T b) {
  if constexpr (kWraps<T>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
EMBER_HOST_DEVICE T wrapping_sub(T a, T b) {
  if constexpr (kWraps<T>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <typename T>
EMBER_HOST_DEVICE T wrapping_mul(T a, T b) {
  if constexpr (kWraps<T>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

// -x, with -INT64_MIN = INT64_MIN as in PyTorch (floats keep -0.0 = -(+0.0)).
template <typename T>
EMBER_HOST_DEVICE T wrapping_neg(T x) {
  if constexpr (kWraps<T>)
    return wrapping_sub(T(0), x);
  else
    return -x;
}

}  // namespace ember::functors
