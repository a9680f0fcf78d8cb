#include "ember/nn/data/dataset.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::data {

int64_t Dataset::read_into(int64_t index, float* out) const {
  const Example e = get(index);
  const Tensor data = e.data.to(kFloat).contiguous();
  std::memcpy(out, data.data_ptr<float>(), sizeof(float) * data.numel());
  return e.target.item<int64_t>();
}

int64_t Dataset::read_bytes_into(int64_t, uint8_t*) const {
  EMBER_ERROR("DataLoader: this dataset has no uint8 images (MNIST, FashionMNIST and CIFAR10 "
              "have); give the loader float32 batches, DataLoaderOptions().dtype(kFloat)");
}

void Dataset::check_index(int64_t index, const char* who) const {
  EMBER_CHECK(index >= 0 && index < size(), who, ": index ", index,
              " is out of range for a dataset of ", size(), " examples");
}

TensorDataset::TensorDataset(const Tensor& data, const Tensor& targets) {
  EMBER_CHECK(data.defined() && targets.defined(),
              "TensorDataset: data and targets must be defined");
  EMBER_CHECK(data.dim() >= 1 && data.is_floating_point(),
              "TensorDataset: data must be a floating tensor (N, ...), got ", data.toString());
  EMBER_CHECK(targets.dim() == 1 && targets.scalar_type() == kLong,
              "TensorDataset: targets must be an int64 tensor (N), got ", targets.toString());
  EMBER_CHECK(data.size(0) == targets.size(0), "TensorDataset: data has ", data.size(0),
              " examples but targets has ", targets.size(0));
  // detach(): the dataset holds values, not a piece of someone's graph.
  data_ = data.detach().cpu().to(kFloat).contiguous();
  targets_ = targets.detach().cpu().contiguous();
}

Example TensorDataset::get(int64_t index) const {
  check_index(index, "TensorDataset");
  return {data_[index], targets_[index]};
}

DimVector TensorDataset::example_shape() const {
  return DimVector(data_.sizes().slice(1, data_.dim() - 1));
}

int64_t TensorDataset::read_into(int64_t index, float* out) const {
  check_index(index, "TensorDataset");
  const int64_t per_example = data_.numel() / std::max<int64_t>(data_.size(0), 1);
  std::memcpy(out, data_.data_ptr<float>() + index * per_example, sizeof(float) * per_example);
  return targets_.data_ptr<int64_t>()[index];
}

}  // namespace ember::data
