#pragma once
// Shared helpers for the tests: element access by index and value checks
// against plain C++ numbers.
#include <catch2/catch.hpp>

#include <ember/ember.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "support/temp_dir.h"

// Whether this build runs under AddressSanitizer: GCC defines
// __SANITIZE_ADDRESS__, clang 14 answers __has_feature instead.
#if defined(__SANITIZE_ADDRESS__)
#define EMBER_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_TEST_SANITIZED 1
#endif
#endif
#ifndef EMBER_TEST_SANITIZED
#define EMBER_TEST_SANITIZED 0
#endif

namespace ember_test {

// The elements of t in row-major order, as doubles (any dtype, any strides).
inline std::vector<double> values(const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous().to(ember::kDouble);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// The elements of an int64 tensor in row-major order, exactly (values()
// would round those above 2^53).
inline std::vector<int64_t> int64_values(const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// Checks t elementwise against `want` (row-major): NaN and inf must match
// exactly, other values within tol relative to max(1, |want|).
inline void require_values(const ember::Tensor& got, const std::vector<double>& want,
                           double tol = 1e-12) {
  const std::vector<double> v = values(got);
  REQUIRE(v.size() == want.size());
  for (size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": got " << v[i] << ", want " << want[i]);
    if (std::isnan(want[i]))
      REQUIRE(std::isnan(v[i]));
    else if (std::isinf(want[i]))
      REQUIRE(v[i] == want[i]);
    else
      REQUIRE(std::abs(v[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
  }
}

// Checks a gradcheck result and prints its report when it fails.
#define REQUIRE_GRADCHECK(result)          \
  do {                                     \
    const auto gc_result_ = (result);      \
    INFO(gc_result_.message);              \
    REQUIRE(gc_result_.ok);                \
  } while (0)

}  // namespace ember_test
