#pragma once
// The normalization kernel family (Note [Kernel tables]): the fused batch and
// layer norm kernels (group norm is layer norm over (sample, group) rows, in
// the op), and cuDNN's training-mode batch norm, which CUDA offers besides its
// own kernels (backends::cudnn::set_batch_norm_enabled). The op
// (core/ops/nn_ops/normalization.cpp) has checked shapes, dtypes (floating, the
// parameters of x's dtype) and devices and passes contiguous tensors; weight
// and bias may be undefined (no affine), and so may a gradient that is not
// wanted. Each kernel takes float32 and float64 and raises
// dispatch_floating's Error (named batch_norm, batch_norm_backward,
// layer_norm or layer_norm_backward) for other dtypes.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct NormalizationKernels {
  // ---- batch norm: x, y, dy, dx: (N, C, S); per-channel tensors: (C) ----

  // Training: mean and biased var of each channel over N and S, invstd =
  // 1/sqrt(var + eps), y = (x - mean) * invstd * weight + bias. (The op
  // updates the running statistics from mean and var.)
  Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
              const Tensor& y, const Tensor& mean, const Tensor& var, const Tensor& invstd)>
      batch_norm_train_forward;
  // y = (x - mean) * invstd * weight + bias with given statistics (x not empty).
  Kernel<void(const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& weight,
              const Tensor& bias, const Tensor& y)>
      batch_norm_apply;
  // Gradients from dy (x not empty). training: mean and invstd are the
  // batch's (dx sees their dependence on x); else they are constants.
  Kernel<void(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& invstd,
              const Tensor& weight, bool training, const Tensor& dx, const Tensor& dweight,
              const Tensor& dbias)>
      batch_norm_backward;

  // ---- batch norm followed by ReLU, in training (the CPU has them; elsewhere
  // the op composes relu(batch_norm(...))) ----

  // As batch_norm_train_forward, then y = max(y, 0) (NaN kept) in the same pass.
  Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
              const Tensor& y, const Tensor& mean, const Tensor& var, const Tensor& invstd)>
      batch_norm_relu_train_forward;
  // As batch_norm_backward in training mode for relu(batch_norm(x)): dy reaches the
  // batch norm where its output z = (x - mean) * invstd * weight + bias, recomputed from x
  // exactly as the forward computed it, is not <= 0 (relu's derivative from its output).
  Kernel<void(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& invstd,
              const Tensor& weight, const Tensor& bias, const Tensor& dx, const Tensor& dweight,
              const Tensor& dbias)>
      batch_norm_relu_backward;

  // ---- cuDNN's training-mode batch norm (CUDA only) ----

  // Whether batch_norm of x with eps and these running statistics goes
  // through the two slots below (cudnn_batch_norm_applies in
  // kernels/cuda/cudnn_batch_norm.h). Where the device has no entry, it does not.
  Kernel<bool(const Tensor& x, double eps, const Tensor& running_mean,
              const Tensor& running_var)>
      cudnn_batch_norm_applies;
  // As batch_norm_train_forward, but cuDNN updates the running statistics
  // (when defined) itself, in place, and gives no var.
  Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
              double momentum, const Tensor& running_mean, const Tensor& running_var,
              const Tensor& y, const Tensor& mean, const Tensor& invstd)>
      cudnn_batch_norm_train_forward;
  // As batch_norm_backward in training mode.
  Kernel<void(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& invstd,
              const Tensor& weight, double eps, const Tensor& dx, const Tensor& dweight,
              const Tensor& dbias)>
      cudnn_batch_norm_backward;

  // ---- layer norm: x, y, dy, dx: M rows of K (any shape); mean, rstd: (M); weight, bias: K ----

  // Each row normalized by its mean and rstd = 1/sqrt(biased var + eps), then
  // y = xhat * weight + bias (M * K > 0).
  Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
              const Tensor& y, const Tensor& mean, const Tensor& rstd)>
      layer_norm_forward;
  // Gradients from dy; M may be 0 (dweight and dbias then zeroed).
  Kernel<void(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
              const Tensor& weight, const Tensor& dx, const Tensor& dweight,
              const Tensor& dbias)>
      layer_norm_backward;
};

// K of layer_norm_backward, for both backends' kernels. With no rows, K comes
// from dweight / dbias, which must still be zeroed.
inline int64_t layer_norm_backward_row_length(const Tensor& x, const Tensor& mean,
                                              const Tensor& dweight, const Tensor& dbias) {
  const int64_t rows = mean.numel();
  return rows > 0             ? x.numel() / rows
         : dweight.defined() ? dweight.numel()
         : dbias.defined()   ? dbias.numel()
                             : 0;
}

}  // namespace ember
