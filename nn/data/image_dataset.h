#pragma once
// A labelled image dataset kept in memory as uint8 pixels (a quarter of
// float32's memory) and converted per example to float CHW in [0, 1], or to
// CHW bytes for uint8 batches: the base of MNIST, FashionMNIST and CIFAR10.
#include <string>
#include <vector>

#include "ember/nn/data/dataset.h"
#include "ember/nn/data/transforms.h"

namespace ember::data {

// Decoded image files: labels.size() images of shape.numel() bytes each.
struct ImageBytes {
  ImageShape shape;
  std::vector<uint8_t> pixels, labels;
};

class ImageDataset : public Dataset {
 public:
  // `name` prefixes errors; `layout` is how data.pixels stores each image.
  ImageDataset(std::string name, PixelLayout layout, ImageBytes data);

  int64_t size() const override { return static_cast<int64_t>(labels_.size()); }
  Example get(int64_t index) const override;
  DimVector example_shape() const override;
  int64_t read_into(int64_t index, float* out) const override;
  int64_t read_bytes_into(int64_t index, uint8_t* out) const override;

  const std::string& name() const { return name_; }
  ImageShape image_shape() const { return shape_; }
  int64_t label(int64_t index) const;
  const uint8_t* pixels(int64_t index) const;  // shape.numel() bytes in the dataset's layout

 private:
  std::string name_;
  ImageShape shape_;
  PixelLayout layout_;
  ToTensor to_tensor_;
  std::vector<uint8_t> pixels_;
  std::vector<uint8_t> labels_;
};

}  // namespace ember::data
