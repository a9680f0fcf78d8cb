#pragma once
// Image transforms, as torchvision's, applied per example on float CHW images,
// and the geometric ones also on uint8 CHW images (a DataLoader with
// dtype(kByte), whose batches NormalizePixels scales on the model's device).
// They work on raw buffers so that the DataLoader writes each example
// straight into its batch tensor (no per-element Tensor ops); the Tensor form
// (operator()) is for use outside a loader. Random ones draw from the
// ExampleRng the loader seeds per (seed, epoch, index) (Note [Reproducible
// data order]).
//   Compose augment(RandomCrop(32, 4), RandomHorizontalFlip(), Normalize({0.5}, {0.5}));
#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/data/example_rng.h"

namespace ember::data {

struct ImageShape {
  int64_t channels = 0, height = 0, width = 0;
  int64_t numel() const { return channels * height * width; }
  bool operator==(const ImageShape&) const = default;
};
std::ostream& operator<<(std::ostream& os, const ImageShape& s);  // "(C, H, W)"

class Transform {
 public:
  virtual ~Transform() = default;
  // The output shape for an input of shape `in`; Error when the transform
  // does not apply to it (e.g. Normalize with 3 means on a 1-channel image).
  virtual ImageShape output_shape(const ImageShape& in) const = 0;
  // in: in_shape floats (C, H, W); out: output_shape(in_shape) floats. They do not overlap.
  virtual void apply(const float* in, const ImageShape& in_shape, float* out,
                     ExampleRng& rng) const = 0;
  // The same on uint8 pixels, with the same random draws. The default is an Error: a
  // transform that computes new values (Normalize) works on float images only.
  virtual void apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                           ExampleRng& rng) const;
  // x: (C, H, W) float32 or uint8 on the CPU -> a new (C', H', W') tensor of its dtype.
  Tensor operator()(const Tensor& x, ExampleRng& rng) const;
};

// t on pixels of either kind: apply() for float32 images, apply_bytes() for
// uint8 ones (for code written once for both).
inline void apply_transform(const Transform& t, const float* in, const ImageShape& in_shape,
                            float* out, ExampleRng& rng) {
  t.apply(in, in_shape, out, rng);
}
inline void apply_transform(const Transform& t, const uint8_t* in, const ImageShape& in_shape,
                            uint8_t* out, ExampleRng& rng) {
  t.apply_bytes(in, in_shape, out, rng);
}

// uint8 pixels -> float CHW in [0, 1]. Not a Transform (its input is bytes):
// datasets use it to produce the float image the transforms start from.
enum class PixelLayout { kCHW, kHWC };
class ToTensor {
 public:
  explicit ToTensor(PixelLayout layout = PixelLayout::kHWC) : layout_(layout) {}
  // bytes: shape.numel() pixels in layout_; out: shape.numel() floats (C, H, W).
  void apply(const uint8_t* bytes, const ImageShape& shape, float* out) const;
  Tensor operator()(const uint8_t* bytes, const ImageShape& shape) const;

 private:
  PixelLayout layout_;
};

// x[c] = (x[c] - mean[c]) / std[c]; one value applies to every channel.
class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std);
  ImageShape output_shape(const ImageShape& in) const override;
  void apply(const float* in, const ImageShape& in_shape, float* out,
             ExampleRng& rng) const override;
  // An Error that points to NormalizePixels.
  void apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                   ExampleRng& rng) const override;

 private:
  std::vector<double> mean_, std_;
};

// ToTensor and Normalize of a whole uint8 batch, on the batch's own device (a DataLoader
// with dtype(kByte) hands out pixels; on CUDA a quarter of float32's bytes cross to the
// device): (N, C, H, W) or (C, H, W) uint8 -> float32 x / 255 * (1 / std[c]) - mean[c] / std[c],
// one rounding away from Normalize(ToTensor(x)). The per-channel factors are made once per
// device, so a steady training step allocates only the output.
//   const NormalizePixels normalize({0.5}, {0.5});
//   const Tensor x = normalize(batch.data.to(device, /*non_blocking=*/true));
class NormalizePixels {
 public:
  NormalizePixels(std::vector<double> mean, std::vector<double> std);
  Tensor operator()(const Tensor& pixels) const;

 private:
  struct Factors {  // scale and shift as (C, 1, 1) float32 tensors, by device
    std::mutex mutex;
    std::map<std::string, std::pair<Tensor, Tensor>> by_device;
  };
  Normalize check_;  // its argument checks, and its output_shape's channel check
  std::vector<double> mean_, std_;
  std::shared_ptr<Factors> factors_ = std::make_shared<Factors>();  // shared by copies
};

// Zero-pads every side by `padding`, then cuts a random (height, width) window.
class RandomCrop : public Transform {
 public:
  RandomCrop(int64_t size, int64_t padding = 0) : RandomCrop(size, size, padding) {}
  RandomCrop(int64_t height, int64_t width, int64_t padding);
  ImageShape output_shape(const ImageShape& in) const override;
  void apply(const float* in, const ImageShape& in_shape, float* out,
             ExampleRng& rng) const override;
  void apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                   ExampleRng& rng) const override;

 private:
  int64_t height_, width_, padding_;
};

// Mirrors the image left-right with probability p.
class RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  ImageShape output_shape(const ImageShape& in) const override { return in; }
  void apply(const float* in, const ImageShape& in_shape, float* out,
             ExampleRng& rng) const override;
  void apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                   ExampleRng& rng) const override;

 private:
  double p_;
};

// Applies transforms in order; an empty Compose copies its input.
class Compose : public Transform {
 public:
  Compose() = default;
  template <typename... T>
    requires(sizeof...(T) > 0 && (std::derived_from<T, Transform> && ...))
  explicit Compose(T... transforms) {
    (add(std::make_shared<T>(std::move(transforms))), ...);
  }
  Compose& add(std::shared_ptr<const Transform> transform);
  bool empty() const { return transforms_.empty(); }
  size_t size() const { return transforms_.size(); }

  ImageShape output_shape(const ImageShape& in) const override;
  void apply(const float* in, const ImageShape& in_shape, float* out,
             ExampleRng& rng) const override;
  void apply_bytes(const uint8_t* in, const ImageShape& in_shape, uint8_t* out,
                   ExampleRng& rng) const override;

 private:
  template <typename T>
  void apply_each(const T* in, const ImageShape& in_shape, T* out, ExampleRng& rng) const;
  std::vector<std::shared_ptr<const Transform>> transforms_;
};

}  // namespace ember::data
