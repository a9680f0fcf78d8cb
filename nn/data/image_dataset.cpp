#include "ember/nn/data/image_dataset.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::data {

ImageDataset::ImageDataset(std::string name, PixelLayout layout, ImageBytes data)
    : name_(std::move(name)),
      shape_(data.shape),
      layout_(layout),
      to_tensor_(layout),
      pixels_(std::move(data.pixels)),
      labels_(std::move(data.labels)) {
  EMBER_INTERNAL_ASSERT(pixels_.size() == labels_.size() * static_cast<size_t>(shape_.numel()),
                        name_, ": ", pixels_.size(), " pixels for ", labels_.size(), " images");
}

Example ImageDataset::get(int64_t index) const {
  check_index(index, name_.c_str());
  return {to_tensor_(pixels(index), shape_), full({}, label(index), kLong)};
}

DimVector ImageDataset::example_shape() const {
  return {shape_.channels, shape_.height, shape_.width};
}

int64_t ImageDataset::read_into(int64_t index, float* out) const {
  check_index(index, name_.c_str());
  to_tensor_.apply(pixels_.data() + index * shape_.numel(), shape_, out);
  return labels_[index];
}

int64_t ImageDataset::read_bytes_into(int64_t index, uint8_t* out) const {
  check_index(index, name_.c_str());
  const uint8_t* bytes = pixels_.data() + index * shape_.numel();
  const int64_t plane = shape_.height * shape_.width, channels = shape_.channels;
  if (layout_ == PixelLayout::kCHW || channels == 1) {
    std::memcpy(out, bytes, static_cast<size_t>(shape_.numel()));
  } else {  // HWC -> CHW: pixel p's channel c is bytes[p * C + c]
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < plane; ++p) out[c * plane + p] = bytes[p * channels + c];
  }
  return labels_[index];
}

int64_t ImageDataset::label(int64_t index) const {
  check_index(index, name_.c_str());
  return labels_[index];
}

const uint8_t* ImageDataset::pixels(int64_t index) const {
  check_index(index, name_.c_str());
  return pixels_.data() + index * shape_.numel();
}

}  // namespace ember::data
