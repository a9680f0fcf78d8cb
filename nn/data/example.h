#pragma once
// What a dataset hands out (one example) and what the DataLoader hands out
// (a batch of them stacked along a new first dimension).
#include "ember/core/tensor.h"

namespace ember::data {

struct Example {
  Tensor data;    // e.g. an image (C, H, W) float32
  Tensor target;  // the class label: int64, 0-dim
};

struct Batch {
  Tensor data;    // (N, C, H, W) float32 for images
  Tensor target;  // (N) int64
};

}  // namespace ember::data
