#pragma once
// The Dataset interface the DataLoader reads, and TensorDataset, an in-memory
// dataset over (data, targets) tensors.
#include <cstdint>

#include "ember/core/dim_vector.h"
#include "ember/nn/data/example.h"

namespace ember::data {

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  // Example `index` as stored (images as float CHW in [0, 1]), no transforms.
  virtual Example get(int64_t index) const = 0;
  // The shape of every example's data, e.g. {1, 28, 28}.
  virtual DimVector example_shape() const = 0;
  // The loader's hot path: writes example `index`'s data into out
  // (example_shape() float32 values, row-major) and returns its label. The
  // default goes through get(); datasets override it to skip the Tensor.
  virtual int64_t read_into(int64_t index, float* out) const;
  // The same for uint8 batches (DataLoaderOptions::dtype(kByte)): example `index`'s pixels,
  // unscaled, as example_shape() bytes (C, H, W). The image datasets implement it; the
  // default is an Error.
  virtual int64_t read_bytes_into(int64_t index, uint8_t* out) const;

 protected:
  // Error unless 0 <= index < size(); `who` names the dataset.
  void check_index(int64_t index, const char* who) const;
};

// data: (N, ...) any float dtype (kept as float32); targets: (N) int64.
class TensorDataset : public Dataset {
 public:
  TensorDataset(const Tensor& data, const Tensor& targets);
  int64_t size() const override { return data_.size(0); }
  Example get(int64_t index) const override;
  DimVector example_shape() const override;
  int64_t read_into(int64_t index, float* out) const override;

 private:
  Tensor data_;     // contiguous float32 on the CPU
  Tensor targets_;  // contiguous int64 on the CPU
};

}  // namespace ember::data
