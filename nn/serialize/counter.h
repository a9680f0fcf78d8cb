#pragma once
// Note [Counters from files]: every integer field a loader reads back (an
// optimizer's step, a scheduler's last_epoch, L-BFGS's counters, a
// checkpoint's epoch and step) goes through read_counter or parse_counter.
// A counter must keep the dtype it was saved with (int64: a float would need
// a float-to-integer conversion that is undefined for NaN or huge values) and
// lie in a plausible range, whose default upper end leaves room for the next
// `++` without a signed overflow.
#include <cstdint>
#include <limits>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

struct CounterRange {
  int64_t min = 0;
  int64_t max = std::numeric_limits<int64_t>::max() - 1;
};

// The value of a counter saved as a one-element int64 tensor. `t` may be null
// (a missing key). Error "<section>: field '<field>' [of '<file>']: ..." when
// it is missing, not int64, not one element, or outside range; file may be
// empty when the caller does not know it.
int64_t read_counter(const Tensor* t, const std::string& section, const std::string& field,
                     CounterRange range = {}, const std::string& file = "");

// The same for a counter saved as decimal text (a checkpoint's metadata):
// Error when the text is not a whole int64 or is outside range.
int64_t parse_counter(const std::string& text, const std::string& section,
                      const std::string& field, CounterRange range = {},
                      const std::string& file = "");

}  // namespace ember
