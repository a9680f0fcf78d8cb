#pragma once
// Options of F::grid_sample, as libtorch's:
//   F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(ember::kNearest)
//                               .padding_mode(ember::kBorder).align_corners(true))
#include <optional>

#include "ember/core/error.h"
#include "ember/core/ops/pad_mode.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/upsampling.h"

namespace ember {

// grid_sample's padding modes by name, as libtorch's torch::kBorder and
// torch::kReflection (kZeros is PadMode's, core/ops/pad_mode.h).
namespace enumtype {
struct kBorder {};
struct kReflection {};
}  // namespace enumtype
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};

namespace nn::functional {

// What grid_sample reads outside the input: kZeros (zero), kBorder (the
// nearest edge pixel) or kReflection (the input mirrored at its edges).
class GridSamplePaddingMode {
 public:
  enum class Kind { Zeros, Border, Reflection };
  GridSamplePaddingMode(PadMode mode) : kind_(Kind::Zeros) {  // NOLINT: kZeros only
    EMBER_CHECK(mode == kZeros, "grid_sample: padding_mode must be kZeros, kBorder or "
                "kReflection, got ", mode);
  }
  GridSamplePaddingMode(enumtype::kBorder) : kind_(Kind::Border) {}          // NOLINT
  GridSamplePaddingMode(enumtype::kReflection) : kind_(Kind::Reflection) {}  // NOLINT
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// mode: kBilinear or kNearest; align_corners: whether -1 and 1 are the centres
// of the corner pixels (true) or their outer edges (false, the default).
struct GridSampleFuncOptions {
  EMBER_ARG(InterpolateMode, mode) = kBilinear;
  EMBER_ARG(GridSamplePaddingMode, padding_mode) = kZeros;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace nn::functional
}  // namespace ember
