#pragma once
// Grid-stride loops of the per-element nn kernels (normalization, pooling,
// upsampling, padding): blocks_for(n) blocks of kNnThreads, each thread running
//   for (int64_t i = first_index(); i < n; i += grid_step())
#include <cstdint>

#include "ember/kernels/common/cuda_plans/normalization_plan.h"

namespace ember::cuda::detail {

__device__ __forceinline__ int64_t first_index() {
  return blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_step() { return int64_t(gridDim.x) * blockDim.x; }

inline unsigned blocks_for(int64_t n) { return static_cast<unsigned>(grid_for_items(n)); }

}  // namespace ember::cuda::detail
