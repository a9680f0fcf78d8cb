#pragma once
// Scalar: a number of any ember dtype, as an op argument (x + 2) or from item().
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"

namespace ember {

// Whether the floating value d converts to the integer type I: C++ leaves the
// conversion of NaN, an infinity or a value whose truncation is outside I's
// range undefined. 2^digits is exact in double; for a signed I the lowest
// valid values are those above -2^digits - 1 (truncation is toward zero).
template <typename I>
constexpr bool fits_integer(double d) {
  const double bound = static_cast<double>(std::numeric_limits<I>::max() / 2 + 1) * 2.0;
  const double low = std::is_signed_v<I> ? d + bound : d;
  return low > -1.0 && d < bound;  // both false for NaN
}

class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v) : type_(kDouble), d_(v) {}  // NOLINT
  Scalar(float v) : type_(kDouble), d_(v) {}   // NOLINT
  Scalar(bool v) : type_(kBool), i_(v) {}      // NOLINT
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Scalar(I v) : type_(kLong), i_(static_cast<int64_t>(v)) {}  // NOLINT

  // kDouble for floating values, kLong for integers, kBool for booleans.
  ScalarType type() const { return type_; }
  bool is_floating_point() const { return type_ == kDouble; }
  bool is_integral() const { return type_ == kLong; }
  bool is_bool() const { return type_ == kBool; }

  // A floating value converted to an integer type must fit it (fits_integer).
  template <typename T>
  T to() const {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (type_ == kDouble && !fits_integer<T>(d_)) [[unlikely]]
        EMBER_ERROR("Scalar: cannot convert ", d_, " to ", std::is_signed_v<T> ? "int" : "uint",
                    8 * sizeof(T), ": not finite or out of the integer type's range");
    }
    if constexpr (is_reduced_float_v<T>)  // through float, as PyTorch converts doubles
      return type_ == kDouble ? T(static_cast<float>(d_)) : T(static_cast<float>(i_));
    else
      return type_ == kDouble ? static_cast<T>(d_) : static_cast<T>(i_);
  }
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return to<bool>(); }
  operator double() const { return to<double>(); }  // NOLINT: item() reads as a number

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    if (s.type_ == kDouble) return os << s.d_;
    if (s.type_ == kBool) return os << (s.i_ ? "true" : "false");
    return os << s.i_;
  }

 private:
  ScalarType type_;
  union {
    double d_;
    int64_t i_;
  };
};

// Whether v converts to dtype t without overflow, as PyTorch requires of fill
// values (the conversion is undefined in C++ otherwise): a floating v fits an
// integer type only when finite and in range, and a floating type when NaN,
// infinite or within its largest finite value. An integer v must lie in the
// integer type's range, where uint8 also takes -255..-1 (they wrap, as
// PyTorch allows), and within a floating type's largest finite value (65504
// for float16); bools fit every dtype.
inline bool converts_without_overflow(const Scalar& v, ScalarType t) {
  if (v.is_bool()) return true;
  return dispatch_storage(t, "fill", [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      return true;
    } else if constexpr (std::numeric_limits<T>::is_integer) {
      if (v.is_floating_point()) return fits_integer<T>(v.toDouble());
      const int64_t i = v.toLong();
      const int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max());
      const int64_t lo = std::is_signed_v<T> ? static_cast<int64_t>(std::numeric_limits<T>::lowest()) : -hi;
      return i >= lo && i <= hi;
    } else {
      const double d = v.toDouble();
      return !std::isfinite(d) || std::abs(d) <= static_cast<double>(std::numeric_limits<T>::max());
    }
  });
}

}  // namespace ember
