#pragma once
// MNIST and Fashion-MNIST in the IDX format (gzip or plain): an images file
// (magic 2051, then count, rows, cols as big-endian uint32, then the pixels)
// and a labels file (magic 2049, count, then one byte per label, < 10).
// Images are (1, 28, 28) float in [0, 1]; targets the class index.
#include <string>

#include "ember/nn/data/image_dataset.h"

namespace ember::data {

enum class Split { kTrain, kTest };

// Decodes an IDX images file and its labels file. Errors (missing file, wrong
// magic, truncated or oversized file, label >= 10, count mismatch) name `who`,
// the file and the byte offset.
ImageBytes read_idx_files(const std::string& who, const std::string& images_file,
                          const std::string& labels_file);

class MNIST : public ImageDataset {
 public:
  // Reads <root>/{train,t10k}-{images-idx3,labels-idx1}-ubyte, or the same name + ".gz".
  explicit MNIST(const std::string& root, Split split = Split::kTrain);
  static MNIST from_files(const std::string& images_file, const std::string& labels_file);

 protected:
  MNIST(const std::string& name, ImageBytes data);
};

// The same format and layout; Debian's dataset-fashion-mnist installs it in kDefaultRoot.
class FashionMNIST : public MNIST {
 public:
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";
  explicit FashionMNIST(const std::string& root = kDefaultRoot, Split split = Split::kTrain);
  static FashionMNIST from_files(const std::string& images_file, const std::string& labels_file);
  // "T-shirt/top", "Trouser", ... for labels 0..9.
  static const char* class_name(int64_t label);

 private:
  explicit FashionMNIST(ImageBytes data) : MNIST("FashionMNIST", std::move(data)) {}
};

}  // namespace ember::data
