#pragma once
// The random family (Note [Kernel tables]): Philox fills of a contiguous
// tensor the op has allocated. Each kernel reserves its blocks from the
// default generator of t's device and runs the per-block draw of
// kernels/common/philox.h, so after manual_seed(s) every device holds the
// values the CPU would and each generator advances by the same blocks. The
// ops (core/ops/creation/random.cpp, dropout.cpp) have checked the arguments; the
// dtype Errors come from the kernels' dispatch, naming the op.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct RandomKernels {
  // Uniform in [from, to). float32 / float64.
  Kernel<void(const Tensor& t, double from, double to)> uniform;
  // Normal with mean and std (std >= 0). float32 / float64.
  Kernel<void(const Tensor& t, double mean, double std)> normal;
  // Integers in [low, high) (low < high). int64 / float32 / float64.
  Kernel<void(const Tensor& t, int64_t low, int64_t high)> randint;
  // Dropout's scaled keep-mask: 1 / (1 - p) where kept, 0 where dropped
  // (0 <= p < 1). float32 / float64.
  Kernel<void(const Tensor& mask, double p)> dropout_mask;
};

}  // namespace ember
