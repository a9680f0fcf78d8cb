#pragma once
// PixelShuffle and PixelUnshuffle, as torch::nn's (F::pixel_shuffle, F::pixel_unshuffle).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn {

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  // x: (*, C * r * r, H, W) -> (*, C, H * r, W * r).
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;  // PixelShuffle(upscale_factor=2)
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  // x: (*, C, H * r, W * r) -> (*, C * r * r, H, W).
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;  // PixelUnshuffle(downscale_factor=2)
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

}  // namespace ember::nn
