#pragma once
// Fused CPU kernels of batch and layer normalization. The ops
// (core/ops/normalization.cpp) check shapes and dtypes and pass contiguous
// tensors; weight and bias may be undefined (no affine). Statistics come
// from sums of (x - shift), shift the first value of the channel or row, so a
// large mean does not cancel the variance away; short partial sums in T,
// totals in double.
#include "ember/core/tensor.h"

namespace ember::cpu {

// ---- batch norm: x, y, dy, dx: (N, C, S); per-channel tensors: (C) ----

// Training: mean and biased var of each channel over N and S, invstd =
// 1/sqrt(var + eps), y = (x - mean) * invstd * weight + bias. One task per
// channel reads it twice (statistics, then output) while it is in cache.
void batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                              const Tensor& y, const Tensor& mean, const Tensor& var,
                              const Tensor& invstd);
// y = (x - mean) * invstd * weight + bias with given statistics.
void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& y);
// Gradients from dy; any of dx, dweight, dbias may be undefined (not needed).
// training: mean and invstd are the batch's (dx sees their dependence on x);
// else they are constants.
void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& dx, const Tensor& dweight, const Tensor& dbias);

// ---- layer norm: x, y, dy, dx: M rows of K (any shape); mean, rstd: (M); weight, bias: K ----

void layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& y, const Tensor& mean, const Tensor& rstd);
void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight, const Tensor& dx, const Tensor& dweight,
                         const Tensor& dbias);

// K of layer_norm_backward (the CUDA kernels' too). With no rows, K comes
// from dweight / dbias, which must still be zeroed.
inline int64_t layer_norm_backward_row_length(const Tensor& x, const Tensor& mean,
                                              const Tensor& dweight, const Tensor& dbias) {
  const int64_t rows = mean.numel();
  return rows > 0             ? x.numel() / rows
         : dweight.defined() ? dweight.numel()
         : dbias.defined()   ? dbias.numel()
                             : 0;
}

}  // namespace ember::cpu
