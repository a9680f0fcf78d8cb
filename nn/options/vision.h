#pragma once
// Options of F::grid_sample, as libtorch's:
//   F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(ember::kNearest)
//                               .padding_mode(ember::kBorder).align_corners(true))
#include <optional>

#include "ember/core/error.h"
#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/upsampling.h"

namespace ember {

// grid_sample's names, as libtorch's torch::kBicubic, torch::kBorder and
// torch::kReflection (kBilinear and kNearest are InterpolateMode's,
// nn/options/upsampling.h; kZeros is PadMode's, core/ops/nn_ops/pad_mode.h).
namespace enumtype {
struct kBicubic {};
struct kBorder {};
struct kReflection {};
}  // namespace enumtype
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};

namespace nn::functional {

// How grid_sample interpolates: kBilinear, kNearest or kBicubic (4-D only).
class GridSampleMode {
 public:
  enum class Kind { Bilinear, Nearest, Bicubic };
  GridSampleMode(InterpolateMode mode)  // NOLINT: kBilinear or kNearest
      : kind_(mode == kNearest ? Kind::Nearest : Kind::Bilinear) {}
  GridSampleMode(enumtype::kBicubic) : kind_(Kind::Bicubic) {}  // NOLINT
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

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

// align_corners: whether -1 and 1 are the centres
// of the corner pixels (true) or their outer edges (false, the default).
struct GridSampleFuncOptions {
  EMBER_ARG(GridSampleMode, mode) = kBilinear;
  EMBER_ARG(GridSamplePaddingMode, padding_mode) = kZeros;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace nn::functional
}  // namespace ember
