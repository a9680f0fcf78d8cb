#include "ember/nn/modules/pixelshuffle.h"

#include "ember/nn/functional/pixelshuffle.h"

namespace ember::nn {

Tensor PixelShuffleImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::pixel_shuffle(x, options); });
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return functional::pixel_unshuffle(x, options); });
}

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

}  // namespace ember::nn
