#pragma once
// Fused CPU loops for the optimizers and gradient clipping: one pass over a
// parameter reads and writes the parameter, its gradient and its state
// together, instead of one pass per elementwise op. Every tensor given must be
// contiguous, on the CPU and of the parameter's dtype (float16, bfloat16,
// float32 or float64: 16-bit elements are computed in float32 and rounded
// once on store); the caller (nn/optim/*) guarantees it. The per-element maths
// is shared with the CUDA kernels (kernels/common/optim_functors.h).
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/optim_functors.h"
#include "ember/kernels/common/optimizer_kernels.h"

namespace ember::cpu {

// The hyperparameters live with the shared maths (optim_functors.h).
using ember::AdagradHyper;
using ember::AdamHyper;
using ember::RmspropHyper;
using ember::SgdHyper;

// torch.optim.SGD's update of one parameter:
//   g = grad + weight_decay * p
//   buf = first_step ? g : momentum * buf + (1 - dampening) * g   (when momentum != 0)
//   d = momentum == 0 ? g : (nesterov ? g + momentum * buf : buf)
//   p = p - lr * d
// momentum_buffer is undefined when momentum == 0.
decltype(OptimizerKernels::sgd)::Signature sgd_update;

// torch.optim.Adam's / AdamW's update of one parameter:
//   p = p * (1 - lr * wd)                    (AdamW)  |  g = grad + wd * p   (Adam)
//   m = m + (1 - beta1) * (g - m)
//   v = beta2 * v + (1 - beta2) * g * g
//   vmax = max(vmax, v)                      (amsgrad; the denominator then uses vmax)
//   denom = sqrt(v) / sqrt(1 - beta2^step) + eps
//   p = p - lr / (1 - beta1^step) * m / denom
// max_exp_avg_sq is undefined unless amsgrad.
decltype(OptimizerKernels::adam)::Signature adam_update;

// torch.optim.RMSprop's update of one parameter (the rule is in optim_functors.h);
// momentum_buffer is undefined unless momentum > 0, grad_avg unless centered.
decltype(OptimizerKernels::rmsprop)::Signature rmsprop_update;

// torch.optim.Adagrad's update of one parameter (the rule is in optim_functors.h).
decltype(OptimizerKernels::adagrad)::Signature adagrad_update;

// Each update above with an active gate reads it first (the CPU's "device"
// memory is the host's) and returns without a write when found_inf is set.
// step += 1 unless found_inf is set.
decltype(OptimizerKernels::count_step)::Signature count_step;

// sum(|x|^p) over x for a finite p > 0, or max(|x|) for p = inf, accumulated
// in float64. NaN elements make the result NaN. x: contiguous, float32 or
// float64 (else the Error of dispatch_floating naming `name`).
double abs_pow_sum(const char* name, const Tensor& x, double p);

}  // namespace ember::cpu
