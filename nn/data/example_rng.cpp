#include "ember/nn/data/example_rng.h"

#include <numeric>

#include "ember/kernels/common/philox.h"

namespace ember::data {

namespace {

// SplitMix64's finalizer: a cheap bijective mix so nearby seeds and epochs
// give unrelated Philox keys.
uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr int kBlocksPerIndexBits = 20;

}  // namespace

ExampleRng::ExampleRng(uint64_t seed, uint64_t epoch, RngStream stream, uint64_t index)
    : key_(mix64(mix64(mix64(seed) ^ epoch) ^ static_cast<uint64_t>(stream))),
      counter_(index << kBlocksPerIndexBits) {}

uint32_t ExampleRng::next_u32() {
  if (lane_ == 4) {
    const philox::Block b = philox::generate(key_, counter_++);
    for (int i = 0; i < 4; ++i) block_[i] = b.v[i];
    lane_ = 0;
  }
  return block_[lane_++];
}

uint64_t ExampleRng::next_u64() {
  const uint64_t hi = next_u32();
  return (hi << 32) | next_u32();
}

double ExampleRng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

int64_t ExampleRng::integer(int64_t n) {
  // Lemire's multiply-shift: unbiased enough for n far below 2^64.
  return static_cast<int64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
}

// Draws at index 0 of the kShuffle stream; past 2^20 blocks they run into
// index 1's counters, which nothing else in that stream uses.
std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, uint64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  ExampleRng rng(seed, epoch, RngStream::kShuffle, 0);
  for (int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.integer(i + 1)]);
  return order;
}

}  // namespace ember::data
