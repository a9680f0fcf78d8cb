#pragma once
// How a loss reduces its per-element values, as libtorch's torch::kNone /
// torch::kMean / torch::kSum: ember::kMean etc.
#include <ostream>

namespace ember {

enum class Reduction { None, Mean, Sum };

inline constexpr Reduction kNone = Reduction::None;  // per-element losses, the target's shape
inline constexpr Reduction kMean = Reduction::Mean;  // their (weighted) mean: a 0-d tensor
inline constexpr Reduction kSum = Reduction::Sum;    // their sum: a 0-d tensor

inline std::ostream& operator<<(std::ostream& os, Reduction r) {
  switch (r) {
    case Reduction::None: return os << "kNone";
    case Reduction::Mean: return os << "kMean";
    case Reduction::Sum: return os << "kSum";
  }
  return os << "Reduction(" << static_cast<int>(r) << ")";
}

}  // namespace ember
