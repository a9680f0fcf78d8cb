#pragma once
// ExpandingArray<D>: D sizes given as one number for all dims or as a list of
// D, as libtorch's: Conv2dOptions(3, 8, 3) and Conv2dOptions(3, 8, {3, 5}).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit as libtorch
  ExpandingArray(std::initializer_list<T> list)       // NOLINT
      : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& list) {  // NOLINT
    EMBER_CHECK(list.size() == D, "expected ", D, " values, got ", list.size());
    for (size_t i = 0; i < D; ++i) values_[i] = list[i];
  }
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  const T* data() const { return values_.data(); }
  constexpr size_t size() const { return D; }
  T& operator[](size_t i) { return values_[i]; }
  const T& operator[](size_t i) const { return values_[i]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }  // NOLINT
  ArrayRef<T> ref() const { return *this; }
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  const std::array<T, D>& array() const { return values_; }

  friend bool operator==(const ExpandingArray& a, const ExpandingArray& b) {
    return a.values_ == b.values_;
  }
  // Printed as [3, 3], as libtorch.
  friend std::ostream& operator<<(std::ostream& os, const ExpandingArray& a) {
    return os << a.ref();
  }

 private:
  std::array<T, D> values_;
};

}  // namespace ember
