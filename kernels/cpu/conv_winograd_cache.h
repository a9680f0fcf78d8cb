#pragma once
// The stride-2 Winograd's cache of transformed weights (Note [Winograd weight cache]).
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

namespace ember::cpu::winograd {

// Note [Winograd weight cache]
// Transforming the weights writes 36 values per (output, input) channel pair
// (kWeightPoints), which for 64 -> 128 channels is 1.2 MB per call. In inference
// forwards (ConvParams::inference) the weights usually repeat from call to call, so
// the transformed weights are kept, with a copy of the weights they came from: a
// call whose weights compare equal, bit for bit, reuses them (the comparison reads
// the weights once, 4x less than the transform writes), and any change, in place or
// not, makes a new entry. The few most recent entries are kept, within a bound on
// their total size. Training forwards, whose weights change at every step,
// transform into scratch instead and keep nothing; benchmark mode's timing of them
// includes the transform.
class WeightCache {
 public:
  struct Entry {
    int64_t k, c;
    std::vector<float> weights, packed;
  };
  // Writes the transformed weights of k x c x 3 x 3 weights w (packed_floats of them).
  using Transform = void (*)(int64_t k, int64_t c, const float* w, float* packed);

  std::shared_ptr<const Entry> get(int64_t k, int64_t c, const float* w, int64_t packed_floats,
                                   Transform transform) {
    const int64_t count = k * c * 9;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        const Entry& e = **it;
        if (e.k == k && e.c == c && std::memcmp(e.weights.data(), w, count * 4) == 0) {
          entries_.splice(entries_.begin(), entries_, it);  // most recent first
          return entries_.front();
        }
      }
    }
    auto entry = std::make_shared<Entry>(
        Entry{k, c, std::vector<float>(w, w + count), std::vector<float>(packed_floats)});
    transform(k, c, w, entry->packed.data());
    if (floats(*entry) > kMaxFloats) return entry;  // too large to keep
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_front(entry);
    int64_t total = 0, kept = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      total += floats(**it);
      if (kept < kMaxEntries && total <= kMaxFloats) ++kept, ++it;
      else it = entries_.erase(it);
    }
    return entry;
  }

 private:
  static constexpr int64_t kMaxEntries = 16;
  static constexpr int64_t kMaxFloats = int64_t(1) << 24;  // 64 MiB in all
  static int64_t floats(const Entry& e) {
    return static_cast<int64_t>(e.weights.size() + e.packed.size());
  }
  std::mutex mutex_;
  std::list<std::shared_ptr<Entry>> entries_;
};

}  // namespace ember::cpu::winograd
