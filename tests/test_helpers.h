#pragma once
// Shared helpers for the tests: element access by index and value checks
// against plain C++ numbers.
#include <catch2/catch.hpp>

#include <ember/ember.h>
#include <vector>

namespace ember_test {

// The elements of t in row-major order, as doubles (any dtype, any strides).
inline std::vector<double> values(const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous().to(ember::kDouble);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// Checks a gradcheck result and prints its report when it fails.
#define REQUIRE_GRADCHECK(result)          \
  do {                                     \
    const auto gc_result_ = (result);      \
    INFO(gc_result_.message);              \
    REQUIRE(gc_result_.ok);                \
  } while (0)

}  // namespace ember_test
