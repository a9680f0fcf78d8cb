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
  EMBER_CHECK(x.dim() == 3 && (x.scalar_type() == kFloat || x.scalar_type() == kByte) &&
                  x.is_cpu(),
              "Transform: expected a float32 or uint8 (C, H, W) image on the CPU, got ",
              x.toString());
  const Tensor in = x.contiguous();
  const ImageShape in_shape{in.size(0), in.size(1), in.size(2)};
  const ImageShape out_shape = output_shape(in_shape);
  Tensor out = empty({out_shape.channels, out_shape.height, out_shape.width}, x.scalar_type());
  if (x.scalar_type() == kByte)
    apply_bytes(in.data_ptr<uint8_t>(), in_shape, out.data_ptr<uint8_t>(), rng);
  else
    apply(in.data_ptr<float>(), in_shape, out.data_ptr<float>(), rng);
  return out;
}

void Transform::apply_bytes(const uint8_t*, const ImageShape&, uint8_t*, ExampleRng&) const {
  EMBER_ERROR("Transform: this transform works on float32 images only; give the DataLoader "
              "float32 batches (DataLoaderOptions().dtype(kFloat))");
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

void Normalize::apply_bytes(const uint8_t*, const ImageShape&, uint8_t*, ExampleRng&) const {
  EMBER_ERROR("Normalize: uint8 batches are normalized on the model's device: leave Normalize "
              "out of the loader's transforms and apply data::NormalizePixels to the batch");
}

NormalizePixels::NormalizePixels(std::vector<double> mean, std::vector<double> std)
    : check_(mean, std), mean_(std::move(mean)), std_(std::move(std)) {}

Tensor NormalizePixels::operator()(const Tensor& pixels) const {
  EMBER_CHECK(pixels.defined() && pixels.scalar_type() == kByte &&
                  (pixels.dim() == 3 || pixels.dim() == 4),
              "NormalizePixels: expected uint8 pixels (N, C, H, W) or (C, H, W), got ",
              pixels.defined() ? pixels.toString() : std::string("an undefined tensor"));
  const int64_t c = pixels.size(pixels.dim() - 3);
  check_.output_shape({c, pixels.size(-2), pixels.size(-1)});
  std::pair<Tensor, Tensor> f;
  {
    std::lock_guard<std::mutex> lock(factors_->mutex);
    auto& slot = factors_->by_device[pixels.device().str()];
    if (!slot.first.defined()) {
      const int64_t n = static_cast<int64_t>(mean_.size());
      Tensor scale = empty({n, 1, 1}, kFloat), shift = empty({n, 1, 1}, kFloat);
      for (int64_t i = 0; i < n; ++i) {
        scale.data_ptr<float>()[i] = static_cast<float>(1.0 / (255.0 * std_[i]));
        shift.data_ptr<float>()[i] = static_cast<float>(-mean_[i] / std_[i]);
      }
      slot = {scale.to(pixels.device()), shift.to(pixels.device())};
    }
    f = slot;
  }
  return pixels.to(kFloat).mul_(f.first).add_(f.second);
}

namespace {

// RandomCrop's window on float or uint8 pixels.
template <typename T>
void crop(const T* in, const ImageShape& s, int64_t height, int64_t width, int64_t padding,
          T* out, ExampleRng& rng) {
  // Window origin in padded coordinates; source row = top + y - padding.
  const int64_t top = rng.integer(s.height + 2 * padding - height + 1) - padding;
  const int64_t left = rng.integer(s.width + 2 * padding - width + 1) - padding;
  const int64_t x_begin = std::clamp<int64_t>(-left, 0, width);
  const int64_t x_end = std::clamp<int64_t>(s.width - left, x_begin, width);
  for (int64_t c = 0; c < s.channels; ++c) {
    for (int64_t y = 0; y < height; ++y) {
      T* dst = out + (c * height + y) * width;
      const int64_t sy = top + y;
      if (sy < 0 || sy >= s.height) {
        std::fill(dst, dst + width, T(0));
        continue;
      }
      const T* src_row = in + (c * s.height + sy) * s.width;
      std::fill(dst, dst + x_begin, T(0));
      std::memcpy(dst + x_begin, src_row + left + x_begin, sizeof(T) * (x_end - x_begin));
      std::fill(dst + x_end, dst + width, T(0));
    }
  }
}

// RandomHorizontalFlip on float or uint8 pixels.
template <typename T>
void flip(const T* in, const ImageShape& s, double p, T* out, ExampleRng& rng) {
  if (!(rng.uniform() < p)) {
    std::memcpy(out, in, sizeof(T) * s.numel());
    return;
  }
  for (int64_t row = 0; row < s.channels * s.height; ++row)
    std::reverse_copy(in + row * s.width, in + (row + 1) * s.width, out + row * s.width);
}

}  // namespace

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
  crop(in, s, height_, width_, padding_, out, rng);
}

void RandomCrop::apply_bytes(const uint8_t* in, const ImageShape& s, uint8_t* out,
                             ExampleRng& rng) const {
  crop(in, s, height_, width_, padding_, out, rng);
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "RandomHorizontalFlip: p must be in [0, 1], got ", p);
}

void RandomHorizontalFlip::apply(const float* in, const ImageShape& s, float* out,
                                 ExampleRng& rng) const {
  flip(in, s, p_, out, rng);
}

void RandomHorizontalFlip::apply_bytes(const uint8_t* in, const ImageShape& s, uint8_t* out,
                                       ExampleRng& rng) const {
  flip(in, s, p_, out, rng);
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
// per thread and element type so a worker allocates once and then reuses them.
template <typename T>
thread_local std::vector<std::vector<T>> compose_scratch;
thread_local size_t compose_depth = 0;
}  // namespace

void Compose::apply(const float* in, const ImageShape& in_shape, float* out,
                    ExampleRng& rng) const {
  apply_each(in, in_shape, out, rng);
}

void Compose::apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                          ExampleRng& rng) const {
  apply_each(in, in_shape, out, rng);
}

template <typename T>
void Compose::apply_each(const T* in, const ImageShape& in_shape, T* out, ExampleRng& rng) const {
  if (transforms_.empty()) {
    std::memcpy(out, in, sizeof(T) * in_shape.numel());
    return;
  }
  const size_t level = compose_depth++;
  struct DepthGuard {
    ~DepthGuard() { --compose_depth; }
  } guard;
  std::vector<std::vector<T>>& scratch = compose_scratch<T>;
  if (scratch.size() < 2 * (level + 1)) scratch.resize(2 * (level + 1));
  const T* src = in;
  ImageShape shape = in_shape;
  for (size_t i = 0; i < transforms_.size(); ++i) {
    const ImageShape next = transforms_[i]->output_shape(shape);
    T* dst = out;
    if (i + 1 < transforms_.size()) {
      std::vector<T>& buffer = scratch[2 * level + i % 2];
      if (buffer.size() < static_cast<size_t>(next.numel())) buffer.resize(next.numel());
      dst = buffer.data();
    }
    apply_transform(*transforms_[i], src, shape, dst, rng);
    src = dst;
    shape = next;
  }
}

}  // namespace ember::data
