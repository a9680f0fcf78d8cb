#pragma once
// Options of Upsample and F::interpolate, as libtorch's:
//   UpsampleOptions().scale_factor({2, 2}).mode(ember::kBilinear).align_corners(false)
#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/nn/options/arg.h"

namespace ember {

enum class InterpolateMode { Nearest, Bilinear };
inline constexpr InterpolateMode kNearest = InterpolateMode::Nearest;
inline constexpr InterpolateMode kBilinear = InterpolateMode::Bilinear;
std::ostream& operator<<(std::ostream& os, InterpolateMode mode);  // "kNearest"

namespace nn {

// Exactly one of size and scale_factor. With scale_factor the output size is
// floor(input size * scale), and the op samples as if given that size (as
// PyTorch with recompute_scale_factor=True). align_corners: bilinear only
// (default false).
struct UpsampleOptions {
  // Braced lists work too: UpsampleOptions().size({4, 4}).
  UpsampleOptions& size(std::vector<int64_t> size) {
    size_ = std::move(size);
    return *this;
  }
  UpsampleOptions& scale_factor(std::vector<double> scale_factor) {
    scale_factor_ = std::move(scale_factor);
    return *this;
  }
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(InterpolateMode, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {
using InterpolateFuncOptions = UpsampleOptions;
}  // namespace functional
}  // namespace nn
}  // namespace ember
