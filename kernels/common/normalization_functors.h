#pragma once
// Maths of batch and layer normalization shared by the CPU kernels
// (kernels/cpu/normalization.cpp) and the CUDA kernels
// (kernels/cuda/normalization_kernels.cu). Statistics come from sums of
// (x - shift), shift one value of the channel or row, so that a large mean
// does not cancel the variance away; the sums are in double.
#include <cmath>
#include <cstdint>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

struct Moments {
  double mean, var;  // var: the biased variance
};

// Mean and biased variance of `count` values from s1 = sum(x - shift) and
// s2 = sum((x - shift)^2).
EMBER_HOST_DEVICE Moments moments_from_shifted_sums(double s1, double s2, double shift,
                                                    int64_t count) {
  const double m = s1 / static_cast<double>(count);
  const double var = s2 / static_cast<double>(count) - m * m;
  return {shift + m, var > 0 ? var : 0.0};
}

// Batch norm's 1 / sqrt(var + eps) from the batch variance, 0 when var + eps
// is 0 (eps 0 and a constant channel): the channel then normalizes to 0, its
// output is the bias, as PyTorch's.
EMBER_HOST_DEVICE double batch_norm_invstd(double var, double eps) {
  const double v = var + eps;
  return v == 0 ? 0.0 : 1.0 / ::sqrt(v);
}

// y = (x - mean) * scale + shift: normalization and the affine map in one,
// scale = invstd * weight, shift = bias.
template <typename T>
EMBER_HOST_DEVICE T normalize_affine(T x, T mean, T scale, T shift) {
  return (x - mean) * scale + shift;
}

// Batch norm's dx = (dy - mean(dy) - (x - mean) * k_xmu) * coef with
// k_xmu = invstd^2 * mean(dy * (x - mean)), coef = invstd * weight (both
// means 0 when not training: the statistics are constants then).
template <typename T>
EMBER_HOST_DEVICE T batch_norm_grad_input(T dy, T x, T mean, T mean_dy, T k_xmu, T coef) {
  return (dy - mean_dy - (x - mean) * k_xmu) * coef;
}

// Layer norm's dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
// dxhat = dy * weight, xhat = (x - mean) * rstd.
template <typename T>
EMBER_HOST_DEVICE T layer_norm_grad_input(T dxhat, T x, T mean, T rstd, T mean_dxhat,
                                          T mean_dxhat_xhat) {
  return rstd * (dxhat - mean_dxhat - (x - mean) * rstd * mean_dxhat_xhat);
}

}  // namespace ember::functors
