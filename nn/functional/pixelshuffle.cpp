#include "ember/nn/functional/pixelshuffle.h"

#include <vector>

namespace ember::nn::functional {

namespace {

// The leading (*) dims of a (*, C, H, W) input.
std::vector<int64_t> batch_dims(const Tensor& x) {
  const IntArrayRef s = x.sizes();
  return std::vector<int64_t>(s.begin(), s.end() - 3);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  const int64_t r = options.upscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_shuffle: expected an input of at least 3 dims (*, C, H, W), got ",
              input.sizes());
  EMBER_CHECK(r > 0, "pixel_shuffle: upscale_factor must be positive, got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle: the channel dim of input ", input.sizes(),
              " (", c, ") is not divisible by upscale_factor^2 = ", r * r);
  const std::vector<int64_t> b = batch_dims(input);
  const int64_t k = static_cast<int64_t>(b.size());
  std::vector<int64_t> split = b, perm, out = b;
  split.insert(split.end(), {c / (r * r), r, r, h, w});  // (*, C, r, r, H, W)
  for (int64_t i = 0; i < k; ++i) perm.push_back(i);
  perm.insert(perm.end(), {k, k + 3, k + 1, k + 4, k + 2});  // (*, C, H, r, W, r)
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return input.reshape(split).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  const int64_t r = options.downscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_unshuffle: expected an input of at least 3 dims (*, C, H, W), got ",
              input.sizes());
  EMBER_CHECK(r > 0, "pixel_unshuffle: downscale_factor must be positive, got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0 && w % r == 0, "pixel_unshuffle: the height and width of input ",
              input.sizes(), " (", h, " and ", w, ") are not both divisible by downscale_factor ",
              r);
  const std::vector<int64_t> b = batch_dims(input);
  const int64_t k = static_cast<int64_t>(b.size());
  std::vector<int64_t> split = b, perm, out = b;
  split.insert(split.end(), {c, h / r, r, w / r, r});  // (*, C, H, r, W, r)
  for (int64_t i = 0; i < k; ++i) perm.push_back(i);
  perm.insert(perm.end(), {k, k + 2, k + 4, k + 1, k + 3});  // (*, C, r, r, H, W)
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return input.reshape(split).permute(perm).reshape(out);
}

}  // namespace ember::nn::functional
