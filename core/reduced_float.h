#pragma once
// The 16-bit floating types: BFloat16 (1 sign, 8 exponent, 7 mantissa bits:
// float32's range, 3 significant digits) and Half (IEEE binary16: 1, 5, 10;
// largest finite 65504, subnormals down to 2^-24).
//
// Note [Reduced-precision floats are storage types]
// They hold bits and convert to and from float32; they have no arithmetic of
// their own. a + b on two BFloat16 adds the two floats, and storing the sum
// back rounds once. Kernels read them as float (PyTorch's "opmath": opmath_t
// below), compute in float and round on store, so a chain of operations inside
// one kernel rounds once, not at each step. Conversion from float rounds to
// nearest, ties to even; NaN stays NaN (quiet, sign kept); values beyond the
// largest finite one round to infinity, as IEEE 754 says.
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

#include "ember/core/host_device.h"

namespace ember {

namespace reduced_float_detail {

EMBER_HOST_DEVICE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

EMBER_HOST_DEVICE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

EMBER_HOST_DEVICE uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  // Adding 0x7fff plus the lowest kept bit rounds half to even; a carry into
  // the exponent is the correct result (up to infinity).
  const uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding_bias) >> 16);
}

EMBER_HOST_DEVICE float bfloat16_bits_to_float(uint16_t h) {
  return bits_float(static_cast<uint32_t>(h) << 16);
}

EMBER_HOST_DEVICE uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((a >> 13) & 0x3ffu);  // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 (and inf): infinity
  if (a >= 0x38800000u) {                         // >= 2^-14: a normal half
    // Rebias the exponent (127 -> 15) and round the 13 dropped bits half to even.
    const uint32_t rebased = a - 0x38000000u;
    return sign | static_cast<uint16_t>((rebased + 0x0fffu + ((rebased >> 13) & 1u)) >> 13);
  }
  if (a <= 0x33000000u) return sign;  // <= 2^-25: rounds to zero (2^-25 ties to even 0)
  // A subnormal half counts units of 2^-24: the float's significand (with its
  // implicit bit) shifted right by 126 - exponent, rounded half to even.
  const uint32_t exponent = a >> 23;
  const uint32_t significand = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exponent;  // 14..24
  uint32_t q = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (q & 1u))) ++q;
  return sign | static_cast<uint16_t>(q);
}

EMBER_HOST_DEVICE float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_float(sign);
  // Subnormal: normalize the mantissa; each shift lowers the float exponent.
  uint32_t float_exponent = 113;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --float_exponent;
  }
  return bits_float(sign | (float_exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

}  // namespace reduced_float_detail

// Tag for building a value from its bit pattern.
struct FromBits {};
inline constexpr FromBits from_bits{};

struct alignas(2) BFloat16 {
  uint16_t x;
  BFloat16() = default;
  EMBER_HOST_DEVICE constexpr BFloat16(uint16_t bits, FromBits) : x(bits) {}
  EMBER_HOST_DEVICE BFloat16(float v) : x(reduced_float_detail::float_to_bfloat16_bits(v)) {}  // NOLINT
  EMBER_HOST_DEVICE operator float() const {  // NOLINT: reads as a float, see the Note
    return reduced_float_detail::bfloat16_bits_to_float(x);
  }
};

struct alignas(2) Half {
  uint16_t x;
  Half() = default;
  EMBER_HOST_DEVICE constexpr Half(uint16_t bits, FromBits) : x(bits) {}
  EMBER_HOST_DEVICE Half(float v) : x(reduced_float_detail::float_to_half_bits(v)) {}  // NOLINT
  EMBER_HOST_DEVICE operator float() const {  // NOLINT: reads as a float, see the Note
    return reduced_float_detail::half_bits_to_float(x);
  }
};

inline std::ostream& operator<<(std::ostream& os, BFloat16 v) { return os << static_cast<float>(v); }
inline std::ostream& operator<<(std::ostream& os, Half v) { return os << static_cast<float>(v); }

// The type a kernel computes in for elements of type T: float for the 16-bit
// floats, T itself otherwise.
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<BFloat16> { using type = float; };
template <> struct OpMath<Half> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

// Floating in ember's sense: float, double and the 16-bit floats (which
// std::is_floating_point does not know).
template <typename T>
inline constexpr bool is_floating_type_v =
    std::numeric_limits<T>::is_specialized && !std::numeric_limits<T>::is_integer;

// static_cast for converting elements between dtypes, with PyTorch's answer
// where C++ has none: a floating value goes to a narrow integer type through
// int64, so it wraps (-2.0 to uint8 is 254), where the direct cast would be
// undefined for any value outside the narrow type's range.
template <typename To, typename From>
EMBER_HOST_DEVICE To convert_element(From v) {
  if constexpr (std::numeric_limits<To>::is_integer && sizeof(To) < sizeof(int64_t) &&
                !std::is_same_v<To, bool> && !std::numeric_limits<From>::is_integer)
    return static_cast<To>(static_cast<int64_t>(v));
  else
    return static_cast<To>(v);
}

template <typename T>
inline constexpr bool is_reduced_float_v = false;
template <> inline constexpr bool is_reduced_float_v<BFloat16> = true;
template <> inline constexpr bool is_reduced_float_v<Half> = true;

}  // namespace ember

namespace ember::reduced_float_detail {

// numeric_limits of a 16-bit float format from its bit patterns.
template <typename T, int Digits, uint16_t Min, uint16_t Max, uint16_t Epsilon, uint16_t Infinity,
          uint16_t QuietNaN>
struct Limits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = Digits;
  static constexpr int radix = 2;
  static constexpr T min() { return {Min, from_bits}; }
  static constexpr T lowest() { return {static_cast<uint16_t>(Max | 0x8000u), from_bits}; }
  static constexpr T max() { return {Max, from_bits}; }
  static constexpr T epsilon() { return {Epsilon, from_bits}; }
  static constexpr T infinity() { return {Infinity, from_bits}; }
  static constexpr T quiet_NaN() { return {QuietNaN, from_bits}; }
  static constexpr T denorm_min() { return {0x0001, from_bits}; }
};

}  // namespace ember::reduced_float_detail

// numeric_limits as for the IEEE types, so that generic code (reduction
// identities, range checks) reads them the same way.
template <>
class std::numeric_limits<ember::BFloat16>
    : public ember::reduced_float_detail::Limits<ember::BFloat16, 8, 0x0080, 0x7f7f, 0x3c00,
                                                 0x7f80, 0x7fc0> {};

template <>
class std::numeric_limits<ember::Half>
    : public ember::reduced_float_detail::Limits<ember::Half, 11, 0x0400, 0x7bff, 0x1400, 0x7c00,
                                                 0x7e00> {};
