#include "ember/nn/serialize/counter.h"

#include <charconv>

#include "ember/core/error.h"

namespace ember {
namespace {

std::string where(const std::string& section, const std::string& field, const std::string& file) {
  std::string out = section + ": field '" + field + "'";
  if (!file.empty()) out += " of '" + file + "'";
  return out;
}

int64_t in_range(int64_t value, const std::string& section, const std::string& field,
                 CounterRange range, const std::string& file) {
  EMBER_CHECK(value >= range.min && value <= range.max, where(section, field, file), ": value ",
              value, " is outside the range [", range.min, ", ", range.max,
              "] a saved counter can have");
  return value;
}

}  // namespace

int64_t read_counter(const Tensor* t, const std::string& section, const std::string& field,
                     CounterRange range, const std::string& file) {
  EMBER_CHECK(t != nullptr && t->defined(), where(section, field, file), ": missing");
  EMBER_CHECK(t->scalar_type() == kLong, where(section, field, file), ": has dtype ",
              t->scalar_type(), ", but a counter is saved as int64");
  EMBER_CHECK(t->numel() == 1, where(section, field, file), ": has shape ", t->sizes(),
              ", but a counter is one number");
  return in_range(t->item<int64_t>(), section, field, range, file);
}

int64_t parse_counter(const std::string& text, const std::string& section,
                      const std::string& field, CounterRange range, const std::string& file) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  EMBER_CHECK(ec == std::errc() && ptr == end && !text.empty(), where(section, field, file),
              ": '", text, "' is not an int64 integer");
  return in_range(value, section, field, range, file);
}

}  // namespace ember
