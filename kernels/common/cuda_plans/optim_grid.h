#pragma once
// The launch of one fused optimizer update (kernels/cuda/optim.h): plain C++,
// built in every configuration, so CPU tests check it.
#include <cstdint>

namespace ember::cuda {

// A grid-stride loop of `threads` threads per block over `numel` elements;
// 0 blocks for an empty parameter (no launch).
struct OptimGrid {
  unsigned blocks = 0;
  unsigned threads = 0;
};
OptimGrid optim_grid(int64_t numel);

}  // namespace ember::cuda
