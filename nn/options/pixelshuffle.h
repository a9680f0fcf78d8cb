#pragma once
// Options of PixelShuffle / PixelUnshuffle and of their functional forms, as
// libtorch's: F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2)), or just
// F::pixel_shuffle(x, 2).
#include <cstdint>

#include "ember/nn/options/arg.h"

namespace ember::nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, upscale_factor);
};

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)  // NOLINT: implicit as libtorch
      : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};

namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional
}  // namespace ember::nn
