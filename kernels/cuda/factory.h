#pragma once
// The range factories on CUDA tensors: the device half of arange and linspace
// (core/ops/factory.cpp), computed on the device with the CPU's functors
// (kernels/common/range_functors.h), so no host buffer crosses the bus. t:
// contiguous 1-d, int64 / float32 / float64, on a CUDA device. Without the
// CUDA backend each raises.
#include "ember/core/tensor.h"

namespace ember::cuda {

// t[i] = start + i * step, in int64 arithmetic when `integral`, else in double.
void fill_arange(const Tensor& t, const Scalar& start, const Scalar& step, bool integral);
// t[i] = start + (end - start) * i / (numel - 1).
void fill_linspace(const Tensor& t, double start, double end);

// Which range a launch fills, on plain data (kernels/cuda/factory.cu).
enum class RangeKind { kArangeInt, kArangeFloat, kLinspace };
struct RangeFill {
  RangeKind kind = RangeKind::kArangeInt;
  ScalarType dtype = kLong;
  void* out = nullptr;
  int64_t n = 0;
  int64_t int_start = 0, int_step = 0;
  double start = 0, step_or_end = 0;
  int device = 0;
};

namespace detail {
void launch_range_fill(const RangeFill& f);
}  // namespace detail

}  // namespace ember::cuda
