#pragma once
// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_.
// Parameters without a gradient are skipped.
#include <limits>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils {

// Scales every gradient by min(1, max_norm / (total_norm + 1e-6)), where
// total_norm is the norm_type-norm of all gradients taken together
// (norm_type = inf: the largest |g|). Returns total_norm. With
// error_if_nonfinite, a NaN or infinite total is an Error (and nothing is
// scaled); otherwise the gradients are scaled by the NaN/inf factor as PyTorch.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// The same, returning the total as a 0-dim float64 tensor on the gradients'
// device (as PyTorch's Python function): on CUDA nothing waits for the device
// (clip_grad_norm_ syncs once to return a double), unless error_if_nonfinite,
// which must read the total before it scales anything.
Tensor clip_grad_norm_tensor_(const std::vector<Tensor>& parameters, double max_norm,
                              double norm_type = 2.0, bool error_if_nonfinite = false);

// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
