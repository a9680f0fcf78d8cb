#pragma once
// The two benchmark-cache harnesses (CPU conv and cuDNN) differ only in which
// cache loads the file; a loader warns on stderr about every bad file, which
// would bury a fuzzing run's own report, so the harnesses silence std::cerr
// (sanitizer reports are written to the file descriptor, not through it).
#include <iostream>

namespace ember::fuzz {

inline void silence_warnings() {
  static const bool once = [] {
    std::cerr.rdbuf(nullptr);
    return true;
  }();
  (void)once;
}

}  // namespace ember::fuzz
