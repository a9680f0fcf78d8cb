#include "ember/core/error.h"

namespace ember::detail {

void throw_error(const std::string& msg) { throw Error(msg); }

void throw_internal(const char* cond, const char* file, int line, const std::string& msg) {
  throw Error(str_cat("internal error (a bug in ember, please report it): ", cond,
                      " failed at ", file, ":", line, msg.empty() ? "" : ": ", msg));
}

}  // namespace ember::detail
