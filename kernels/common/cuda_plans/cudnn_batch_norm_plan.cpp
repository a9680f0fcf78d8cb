// cuDNN batch norm's limits (cudnn_batch_norm_plan.h).
#include "ember/kernels/common/cuda_plans/cudnn_batch_norm_plan.h"

#include <climits>
#include <cstdint>

namespace ember::cuda {

bool cudnn_batch_norm_takes(ScalarType dtype, IntArrayRef sizes, double eps) {
  if (dtype != kFloat && dtype != kDouble) return false;
  if (sizes.size() < 2 || !(eps >= kCudnnBatchNormMinEps)) return false;  // NaN eps too
  int64_t numel = 1;
  for (int64_t d : sizes) numel *= d;
  if (numel == 0) return false;
  const int64_t n = sizes[0], c = sizes[1], s = numel / (n * c);
  return n <= INT_MAX && c <= INT_MAX && s <= INT_MAX && numel <= INT_MAX;
}

}  // namespace ember::cuda
