#include "ember/core/generator.h"

#include "ember/core/error.h"

namespace ember {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}
uint64_t Generator::seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}
uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}
void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  offset_ = offset;
}
std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t first = offset_;
  offset_ += blocks;
  return {seed_, first};
}

namespace {
constexpr int kMaxCudaDevices = 16;
}

Generator& default_generator(Device device) {
  static Generator cpu;
  static Generator cuda[kMaxCudaDevices];
  if (device.is_cpu()) return cpu;
  const int index = device.index() < 0 ? 0 : device.index();
  EMBER_CHECK(index < kMaxCudaDevices, "default_generator: no generator for ", device);
  return cuda[index];
}

void manual_seed(uint64_t seed) {
  default_generator(Device(kCPU)).manual_seed(seed);
  for (int i = 0; i < kMaxCudaDevices; ++i) default_generator(Device(kCUDA, i)).manual_seed(seed);
}

}  // namespace ember
