#pragma once
// The CUDA entry points of the range factory family
// (kernels/common/factory_kernels.h says what each computes), computed on the
// device with the CPU's functors (kernels/common/range_functors.h). t:
// contiguous 1-d, on a CUDA device. CUDA builds only (factory.cu); registered
// in kernels/cuda/register_kernels.cu.
#include "ember/kernels/common/factory_kernels.h"

namespace ember::cuda {

decltype(FactoryKernels::arange)::Signature fill_arange;
decltype(FactoryKernels::linspace)::Signature fill_linspace;

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
