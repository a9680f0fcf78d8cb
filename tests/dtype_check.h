#pragma once
// What the kernel-table dtype checks (elementwise_dtype_check.h,
// reduce_dtype_check.h) share: the dtypes they try, and the Error a kernel
// raises for a dtype its row does not take.
#include <catch2/catch.hpp>
#include <ember/core/dtype.h>

#include <string>

namespace ember::dtype_check {

inline const ScalarType kDtypes[] = {kBool, kLong, kFloat, kDouble};

// The Error of a dtype the op does not take.
inline auto refuses(const char* op, ScalarType t) {
  return Catch::Contains(std::string(op) + ": dtype " + dtype_name(t) + " is not supported");
}

}  // namespace ember::dtype_check
