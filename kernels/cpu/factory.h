#pragma once
// The CPU range factories: the loops behind arange and linspace on CPU tensors.
#include "ember/core/tensor.h"

namespace ember::cpu {

// t[i] = start + i * step, in int64 arithmetic when `integral`, else in double.
void arange_kernel(const Tensor& t, const Scalar& start, const Scalar& step, bool integral);
// t[i] = start + (end - start) * i / (numel - 1).
void linspace_kernel(const Tensor& t, double start, double end);

}  // namespace ember::cpu
