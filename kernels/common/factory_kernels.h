#pragma once
// The range factory family (Note [Kernel tables]): arange and linspace fill a
// tensor the op has allocated, with the functors of
// kernels/common/range_functors.h on every device, so a range is the same on
// each bit for bit and no host buffer crosses the bus. t: contiguous, 1-d,
// int64 / float32 / float64 (the dispatch's Error, naming the op, for the
// others). The op (core/ops/creation/factory.cpp) has checked the bounds and the step
// and sized t.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct FactoryKernels {
  // t[i] = start + i * step, in int64 arithmetic when `integral`, else in double.
  Kernel<void(const Tensor& t, const Scalar& start, const Scalar& step, bool integral)> arange;
  // t[i] = start + (end - start) * i / (numel - 1); start alone when numel is 1.
  Kernel<void(const Tensor& t, double start, double end)> linspace;
};

}  // namespace ember
