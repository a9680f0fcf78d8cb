#include "ember/nn/functional/upsampling.h"

#include <cmath>

#include "ember/core/ops/nn_ops/pooling.h"
#include "ember/core/ops/nn_ops/upsample.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, InterpolateMode mode) {
  switch (mode) {
    case InterpolateMode::Nearest: return os << "kNearest";
    case InterpolateMode::Bilinear: return os << "kBilinear";
  }
  return os;
}

namespace nn::functional {

namespace {

// The (H', W') to produce, from size or scale_factor.
std::vector<int64_t> output_size(const Tensor& input, const InterpolateFuncOptions& options) {
  const auto& size = options.size();
  const auto& scale = options.scale_factor();
  EMBER_CHECK(size.has_value() != scale.has_value(), "interpolate: ",
              size ? "only one of size or scale_factor should be defined"
                   : "either size or scale_factor should be defined");
  if (size) {
    EMBER_CHECK(size->size() == 2, "interpolate: size must have 2 values (H, W) for a 4-D input, "
                "got ", IntArrayRef(*size));
    return *size;
  }
  EMBER_CHECK(scale->size() == 2,
              "interpolate: scale_factor must have 2 values (H, W) for a 4-D input, got ",
              scale->size());
  std::vector<int64_t> out(2);
  for (size_t i = 0; i < 2; ++i) {
    EMBER_CHECK((*scale)[i] > 0, "interpolate: scale_factor must be positive, got ", (*scale)[i]);
    out[i] = static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * (*scale)[i]));
  }
  return out;
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  EMBER_CHECK(input.dim() == 4, "interpolate: expected a 4-D input (N, C, H, W), got ",
              input.sizes());
  const std::vector<int64_t> size = output_size(input, options);
  if (options.mode() == kNearest) {
    EMBER_CHECK(!options.align_corners().has_value(),
                "interpolate: align_corners can only be set with the interpolating mode "
                "kBilinear (mode is kNearest)");
    return upsample_nearest2d(input, size);
  }
  return upsample_bilinear2d(input, size, options.align_corners().value_or(false));
}

}  // namespace nn::functional
}  // namespace ember
