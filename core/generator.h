#pragma once
// The random number generator: a Philox key (the seed) and a counter offset.
// Each random op reserves the blocks it will read (kernels/common/philox.h for
// the layout) and advances the offset, so results do not depend on threads
// or device. manual_seed resets every device's generator.
#include <cstdint>
#include <mutex>

#include "ember/core/device.h"

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // Reserves `blocks` Philox blocks; returns (seed, first counter).
  std::pair<uint64_t, uint64_t> reserve(uint64_t blocks);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator(Device device = Device(kCPU));
void manual_seed(uint64_t seed);

}  // namespace ember
