#pragma once
// The entry points of the fused optimizer kernels (kernels/cuda/optim.cu,
// CUDA builds only), on raw pointers: kernels/cuda/optim.cpp checks the
// tensors and makes their device current. Each dispatches on the dtype
// (float32 / float64) and on the flags that select the update rule.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/kernels/common/optim_functors.h"
#include "ember/kernels/cuda/optim_grid.h"

namespace ember::cuda::detail {

// buf is null when h.momentum == 0.
void launch_sgd_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                       const void* grad, void* buf, const SgdHyper& h, bool first_step);
// max_exp_avg_sq is null unless h.amsgrad.
void launch_adam_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                        const void* grad, void* exp_avg, void* exp_avg_sq, void* max_exp_avg_sq,
                        const AdamHyper& h);
// momentum_buffer is null unless h.momentum > 0, grad_avg unless h.centered.
void launch_rmsprop_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* square_avg, void* momentum_buffer,
                           void* grad_avg, const RmspropHyper& h);
void launch_adagrad_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* sum, const AdagradHyper& h);

}  // namespace ember::cuda::detail
