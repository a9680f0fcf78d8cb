#pragma once
// The CPU Philox fills: the loops behind uniform_, normal_, randint and the
// dropout keep-mask on CPU tensors. t: contiguous.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::cpu {

// float32 / float64.
void uniform_kernel(const Tensor& t, double from, double to);
void normal_kernel(const Tensor& t, double mean, double std);
// int64 / float32 / float64: integers in [low, high).
void randint_kernel(const Tensor& t, int64_t low, int64_t high);
// float32 / float64: 1 / (1 - p) where kept, 0 where dropped (0 <= p < 1).
void dropout_mask_kernel(const Tensor& mask, double p);

}  // namespace ember::cpu
