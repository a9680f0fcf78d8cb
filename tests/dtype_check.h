#pragma once
// What the kernel-table dtype checks (elementwise_dtype_check.h,
// reduce_dtype_check.h, ...) share: the dtypes they try, and the Error a kernel
// raises for a dtype its row does not take.
#include <catch2/catch.hpp>
#include <ember/core/dtype.h>

#include <functional>
#include <string>

namespace ember::dtype_check {

// The dtypes every kernel computes in natively: the families that take no
// others yet are checked on these.
inline const ScalarType kDtypes[] = {kBool, kLong, kFloat, kDouble};
// Every dtype: the families that convert the others (the copies, the
// elementwise and reduce op tables) are checked on these.
inline const ScalarType kEveryDtype[] = {kBool, kByte, kChar, kShort, kInt,
                                         kLong, kHalf, kBFloat16, kFloat, kDouble};

// The Error of a dtype the op does not take.
inline auto refuses(const char* op, ScalarType t) {
  return Catch::Contains(std::string(op) + ": dtype " + dtype_name(t) + " is not supported");
}

// run() succeeds when `takes`, else raises refuses(op, t).
inline void expect(const char* op, ScalarType t, bool takes, const std::function<void()>& run) {
  INFO(op << ", " << t);
  if (takes)
    CHECK_NOTHROW(run());
  else
    CHECK_THROWS_WITH(run(), refuses(op, t));
}

}  // namespace ember::dtype_check
