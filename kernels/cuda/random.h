#pragma once
// Philox fills of device memory: the CUDA twins of Tensor::uniform_ and
// Tensor::normal_ (core/ops/random.cpp). Both draw from the current device's
// default generator with the same stream layout as the CPU (kernels/common/
// philox.h), so after manual_seed(s) they produce the values ember::rand /
// ember::randn produce on the CPU.
#include <cstdint>

#include "ember/core/dtype.h"

namespace ember::cuda {

// out: n contiguous float32 or float64 values in memory of the current device.
void fill_uniform(void* out, ScalarType dtype, int64_t n, double from, double to);
void fill_normal(void* out, ScalarType dtype, int64_t n, double mean, double std);

}  // namespace ember::cuda
