#pragma once
// CIFAR-10, binary version: data_batch_1..5.bin (train) and test_batch.bin
// (test), each a sequence of 3073-byte records: 1 label byte (< 10), then
// 3072 pixel bytes, CHW (1024 red, 1024 green, 1024 blue, rows of 32).
// Images are (3, 32, 32) float in [0, 1].
#include <string>
#include <vector>

#include "ember/nn/data/image_dataset.h"
#include "ember/nn/data/mnist.h"

namespace ember::data {

class CIFAR10 : public ImageDataset {
 public:
  static constexpr int64_t kRecordBytes = 3073;
  // Looks for the files in root, then in root/cifar-10-batches-bin (the tarball's folder).
  explicit CIFAR10(const std::string& root, Split split = Split::kTrain);
  // Reads the given files in order. Errors name the file and the byte offset.
  static CIFAR10 from_files(const std::vector<std::string>& files);
  // "airplane", "automobile", ... for labels 0..9.
  static const char* class_name(int64_t label);

 private:
  explicit CIFAR10(ImageBytes data) : ImageDataset("CIFAR10", PixelLayout::kCHW, std::move(data)) {}
};

}  // namespace ember::data
