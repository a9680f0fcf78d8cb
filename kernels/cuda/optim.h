#pragma once
// The fused optimizer updates on CUDA parameters (nn/optim/*): one kernel
// launch per parameter reads and writes the parameter, its gradient and its
// state together, on the legacy default stream. The maths is the CPU loops'
// (kernels/common/optim_functors.h); the step's bias corrections are computed
// on the host and passed by value, so a step needs no host sync. A gated step
// (StepGate) reads its flag and step count in the kernel instead. Every tensor
// must be contiguous, on the parameter's CUDA device and of its dtype
// (float16, bfloat16, float32 or float64: 16-bit elements are computed in
// float32 and rounded once on store). Defined in optim.cu; registered in the
// optimizer kernel table (kernels/cuda/register_kernels.cu).
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/optim_grid.h"
#include "ember/kernels/common/optim_functors.h"
#include "ember/kernels/common/optimizer_kernels.h"

namespace ember::cuda {

// As cpu::sgd_update (momentum_buffer undefined when momentum == 0).
decltype(OptimizerKernels::sgd)::Signature sgd_update;
// As cpu::adam_update (max_exp_avg_sq undefined unless amsgrad).
decltype(OptimizerKernels::adam)::Signature adam_update;
// As cpu::rmsprop_update (momentum_buffer undefined unless momentum > 0, grad_avg unless centered).
decltype(OptimizerKernels::rmsprop)::Signature rmsprop_update;
// As cpu::adagrad_update.
decltype(OptimizerKernels::adagrad)::Signature adagrad_update;
// As cpu::count_step, in a one-thread kernel.
decltype(OptimizerKernels::count_step)::Signature count_step;

}  // namespace ember::cuda
