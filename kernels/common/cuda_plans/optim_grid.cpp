// The launch of one fused optimizer update (kernels/common/cuda_plans/optim_grid.h): plain
// C++, built in every configuration, so CPU tests check it.
#include "ember/kernels/common/cuda_plans/optim_grid.h"

#include <algorithm>

namespace ember::cuda {

namespace {
constexpr unsigned kOptimThreads = 256;
constexpr int64_t kMaxOptimBlocks = 65535;  // a grid-stride loop covers the rest
}  // namespace

OptimGrid optim_grid(int64_t numel) {
  const int64_t blocks = (numel + kOptimThreads - 1) / kOptimThreads;
  return {static_cast<unsigned>(std::min(blocks, kMaxOptimBlocks)), kOptimThreads};
}

}  // namespace ember::cuda
