#pragma once
// The launches of the normalization kernels (kernels/cuda/
// normalization_kernels.cu, CUDA builds only), on plain data: the entry
// points of normalization.h read the tensors, plan the reductions and
// allocate their scratch (double) from the caching allocator. Every buffer
// is contiguous device memory of `device`; optional ones may be null.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/kernels/common/cuda_plans/normalization_plan.h"

namespace ember::cuda::detail {

// x: (N, C, S).
struct BatchNormShape {
  ScalarType dtype;
  int64_t n, c, s;
  int device;
};

void launch_batch_norm_train_forward(const BatchNormShape& d, const ChannelReducePlan& p,
                                     const void* x, const void* weight, const void* bias,
                                     double eps, void* y, void* mean, void* var, void* invstd,
                                     double* scratch);
void launch_batch_norm_apply(const BatchNormShape& d, const void* x, const void* mean,
                             const void* invstd, const void* weight, const void* bias, void* y);
void launch_batch_norm_backward(const BatchNormShape& d, const ChannelReducePlan& p,
                                const void* x, const void* dy, const void* mean,
                                const void* invstd, const void* weight, bool training, void* dx,
                                void* dweight, void* dbias, double* scratch);

// x: `rows` rows of k values.
void launch_layer_norm_forward(ScalarType t, int64_t rows, int64_t k, const void* x,
                               const void* weight, const void* bias, double eps, void* y,
                               void* mean, void* rstd, int device);
void launch_layer_norm_backward(ScalarType t, int64_t rows, int64_t k, const void* x,
                                const void* dy, const void* mean, const void* rstd,
                                const void* weight, void* dx, void* dweight, void* dbias,
                                double* scratch, int device);

}  // namespace ember::cuda::detail
