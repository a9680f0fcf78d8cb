#pragma once
// sum(|x|^p) in one fused pass, the reduction of gradient-norm clipping
// (nn/utils/clip_grad.cpp). Internal, not in ember.h, and not differentiable:
// clipping runs under no-grad.
#include "ember/core/tensor.h"

namespace ember {

// sum over x of |x|^p accumulated in float64, or max |x| for p = inf (NaN
// wins), as a 0-dim float64 tensor on x's device; 0 for an empty x. No
// temporary the size of x, and no host sync on CUDA. `name` is the op an
// Error names (a dtype that is not floating, a device without the kernel).
Tensor abs_pow_sum(const char* name, const Tensor& x, double p);

}  // namespace ember
