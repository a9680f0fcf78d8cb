#include "ember/nn/data/transforms.h"

#include <algorithm>
#include <cstring>
#include <ostream>

#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::data {

std::ostream& operator<<(std::ostream& os, const ImageShape& s) {
  return os << "(" << s.channels << ", " << s.height << ", " << s.width << ")";
}

Tensor Transform::operator()(const Tensor& x, ExampleRng& rng) const {
  EMBER_CHECK(x.dim() == 3 && x.scalar_type() == kFloat && x.is_cpu(),
              "Transform: expected a float32 (C, H, W) image on the CPU, got ", x.toString());
  const Tensor in = x.contiguous();
  const ImageShape in_shape{in.size(0), in.size(1), in.size(2)};
  const ImageShape out_shape = output_shape(in_shape);
  Tensor out = empty({out_shape.channels, out_shape.height, out_shape.width}, kFloat);
  apply(in.data_ptr<float>(), in_shape, out.data_ptr<float>(), rng);
  return out;
}

void ToTensor::apply(const uint8_t* bytes, const ImageShape& shape, float* out) const {
  constexpr float kScale = 1.0f / 255.0f;
  const int64_t plane = shape.height * shape.width;
  if (layout_ == PixelLayout::kCHW || shape.channels == 1) {
    for (int64_t i = 0; i < shape.numel(); ++i) out[i] = bytes[i] * kScale;
    return;
  }
  // HWC -> CHW: pixel p's channel c is bytes[p * C + c].
  for (int64_t c = 0; c < shape.channels; ++c)
    for (int64_t p = 0; p < plane; ++p) out[c * plane + p] = bytes[p * shape.channels + c] * kScale;
}

Tensor ToTensor::operator()(const uint8_t* bytes, const ImageShape& shape) const {
  Tensor out = empty({shape.channels, shape.height, shape.width}, kFloat);
  apply(bytes, shape, out.data_ptr<float>());
  return out;
}

Normalize::Normalize(std::vector<double> mean, std::vector<double> std)
    : mean_(std::move(mean)), std_(std::move(std)) {
  EMBER_CHECK(!mean_.empty() && mean_.size() == std_.size(), "Normalize: got ", mean_.size(),
              " means and ", std_.size(), " stds; give one per channel (or one for all)");
  for (double s : std_) EMBER_CHECK(s != 0, "Normalize: std must be nonzero, got ", s);
}

ImageShape Normalize::output_shape(const ImageShape& in) const {
  const int64_t n = static_cast<int64_t>(mean_.size());
  EMBER_CHECK(n == 1 || n == in.channels, "Normalize: ", n, " means for an image of shape ", in,
              " (", in.channels, " channels)");
  return in;
}

void Normalize::apply(const float* in, const ImageShape& in_shape, float* out, ExampleRng&) const {
  const int64_t plane = in_shape.height * in_shape.width;
  for (int64_t c = 0; c < in_shape.channels; ++c) {
    const size_t k = mean_.size() == 1 ? 0 : static_cast<size_t>(c);
    const float scale = static_cast<float>(1.0 / std_[k]);
    const float shift = static_cast<float>(-mean_[k] / std_[k]);
    const float* src = in + c * plane;
    float* dst = out + c * plane;
    for (int64_t i = 0; i < plane; ++i) dst[i] = src[i] * scale + shift;
  }
}

RandomCrop::RandomCrop(int64_t height, int64_t width, int64_t padding)
    : height_(height), width_(width), padding_(padding) {
  EMBER_CHECK(height > 0 && width > 0 && padding >= 0, "RandomCrop: size (", height, ", ", width,
              ") must be positive and padding ", padding, " non-negative");
}

ImageShape RandomCrop::output_shape(const ImageShape& in) const {
  EMBER_CHECK(height_ <= in.height + 2 * padding_ && width_ <= in.width + 2 * padding_,
              "RandomCrop: crop (", height_, ", ", width_, ") is larger than the image ", in,
              " padded by ", padding_);
  return {in.channels, height_, width_};
}

void RandomCrop::apply(const float* in, const ImageShape& s, float* out, ExampleRng& rng) const {
  // Window origin in padded coordinates; source row = top + y - padding.
  const int64_t top = rng.integer(s.height + 2 * padding_ - height_ + 1) - padding_;
  const int64_t left = rng.integer(s.width + 2 * padding_ - width_ + 1) - padding_;
  const int64_t x_begin = std::clamp<int64_t>(-left, 0, width_);
  const int64_t x_end = std::clamp<int64_t>(s.width - left, x_begin, width_);
  for (int64_t c = 0; c < s.channels; ++c) {
    for (int64_t y = 0; y < height_; ++y) {
      float* dst = out + (c * height_ + y) * width_;
      const int64_t sy = top + y;
      if (sy < 0 || sy >= s.height) {
        std::fill(dst, dst + width_, 0.0f);
        continue;
      }
      const float* src_row = in + (c * s.height + sy) * s.width;
      std::fill(dst, dst + x_begin, 0.0f);
      std::memcpy(dst + x_begin, src_row + left + x_begin, sizeof(float) * (x_end - x_begin));
      std::fill(dst + x_end, dst + width_, 0.0f);
    }
  }
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "RandomHorizontalFlip: p must be in [0, 1], got ", p);
}

void RandomHorizontalFlip::apply(const float* in, const ImageShape& s, float* out,
                                 ExampleRng& rng) const {
  if (!(rng.uniform() < p_)) {
    std::memcpy(out, in, sizeof(float) * s.numel());
    return;
  }
  for (int64_t row = 0; row < s.channels * s.height; ++row)
    std::reverse_copy(in + row * s.width, in + (row + 1) * s.width, out + row * s.width);
}

Compose& Compose::add(std::shared_ptr<const Transform> transform) {
  EMBER_CHECK(transform != nullptr, "Compose: got a null transform");
  transforms_.push_back(std::move(transform));
  return *this;
}

ImageShape Compose::output_shape(const ImageShape& in) const {
  ImageShape s = in;
  for (const auto& t : transforms_) s = t->output_shape(s);
  return s;
}

namespace {
// Two scratch images per nesting level (a Compose may hold a Compose), kept
// per thread so a worker allocates once and then reuses them.
thread_local std::vector<std::vector<float>> compose_scratch;
thread_local size_t compose_depth = 0;
}  // namespace

void Compose::apply(const float* in, const ImageShape& in_shape, float* out,
                    ExampleRng& rng) const {
  if (transforms_.empty()) {
    std::memcpy(out, in, sizeof(float) * in_shape.numel());
    return;
  }
  const size_t level = compose_depth++;
  struct DepthGuard {
    ~DepthGuard() { --compose_depth; }
  } guard;
  if (compose_scratch.size() < 2 * (level + 1)) compose_scratch.resize(2 * (level + 1));
  const float* src = in;
  ImageShape shape = in_shape;
  for (size_t i = 0; i < transforms_.size(); ++i) {
    const ImageShape next = transforms_[i]->output_shape(shape);
    float* dst = out;
    if (i + 1 < transforms_.size()) {
      std::vector<float>& buffer = compose_scratch[2 * level + i % 2];
      if (buffer.size() < static_cast<size_t>(next.numel())) buffer.resize(next.numel());
      dst = buffer.data();
    }
    transforms_[i]->apply(src, shape, dst, rng);
    src = dst;
    shape = next;
  }
}

}  // namespace ember::data
