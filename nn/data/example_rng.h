#pragma once
// Random draws that are a pure function of (seed, epoch, index): Philox
// (kernels/common/philox.h) keyed by a hash of (seed, epoch, stream) with the
// example index in the counter. Note [Reproducible data order]: the shuffle
// order of epoch e and the random transforms of example i in epoch e depend
// on nothing else, so a resumed run sees the same data, and batches do not
// depend on how many workers built them or in which order.
#include <cstdint>
#include <vector>

namespace ember::data {

// Which independent stream of one (seed, epoch) pair to draw from.
enum class RngStream : uint64_t { kShuffle = 1, kTransform = 2 };

class ExampleRng {
 public:
  ExampleRng(uint64_t seed, uint64_t epoch, RngStream stream, uint64_t index);
  uint32_t next_u32();
  uint64_t next_u64();
  double uniform();            // [0, 1)
  int64_t integer(int64_t n);  // [0, n), n > 0

 private:
  uint64_t key_;
  uint64_t counter_;  // index * 2^20 + blocks drawn so far
  uint32_t block_[4] = {0, 0, 0, 0};
  int lane_ = 4;  // next unused word of block_; 4 = none left
};

// A permutation of [0, n) that depends only on (seed, epoch): Fisher-Yates
// driven by the kShuffle stream.
std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, uint64_t epoch);

}  // namespace ember::data
