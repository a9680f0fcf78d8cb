#pragma once
// The CUDA entry points of the normalization family's own kernels
// (kernels/common/normalization_kernels.h says what each computes and what
// the op has checked; the cuDNN ones are in cudnn_batch_norm.h), in
// kernels/cuda/normalization_kernels.cu, registered in
// kernels/cuda/register_kernels.cu. The per-channel and per-row sums are in
// double (warp shuffles, then a block reduce; batch norm splits a large
// channel over several blocks: normalization_plan.h).
#include "ember/core/tensor.h"

namespace ember::cuda {

void batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                              const Tensor& y, const Tensor& mean, const Tensor& var,
                              const Tensor& invstd);
void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& y);
void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& dx, const Tensor& dweight, const Tensor& dbias);

void layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& y, const Tensor& mean, const Tensor& rstd);
void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight, const Tensor& dx, const Tensor& dweight,
                         const Tensor& dbias);

}  // namespace ember::cuda
