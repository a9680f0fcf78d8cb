#pragma once
// ember::Error and the check macros. Note [Errors for users, asserts for bugs]:
// EMBER_CHECK reports a user mistake (bad shapes, dtypes, devices) and always
// runs; EMBER_INTERNAL_ASSERT guards an invariant of ember itself, so a failure
// is a bug in ember and the message says so.
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_error(const std::string& msg);
[[noreturn]] void throw_internal(const char* cond, const char* file, int line, const std::string& msg);
}  // namespace detail
}  // namespace ember

// EMBER_CHECK(cond, "op: ", shape, " ...") throws ember::Error with the streamed message.
#define EMBER_CHECK(cond, ...)                                                  \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::ember::detail::throw_error(::ember::detail::str_cat(__VA_ARGS__));      \
  } while (0)

#define EMBER_ERROR(...) ::ember::detail::throw_error(::ember::detail::str_cat(__VA_ARGS__))

#define EMBER_INTERNAL_ASSERT(cond, ...)                                        \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::ember::detail::throw_internal(#cond, __FILE__, __LINE__,                \
                                      ::ember::detail::str_cat(__VA_ARGS__));     \
  } while (0)
