#pragma once
// Training-mode batch norm through cuDNN's legacy calls
// (cudnnBatchNormalizationForwardTraining and ...Backward, spatial mode): the
// alternative to our own kernels (normalization.h) that
// backends::cudnn::set_batch_norm_enabled(true) selects, so that the two can
// be measured against each other (benchmarks/cuda_nn_ops) and the faster one
// kept. Same contracts as normalization.h: x contiguous (N, C, *), viewed by
// cuDNN as (N, C, S, 1); weight and bias optional. Compiled in every build;
// without CUDA, applies() is false and the calls raise.
#include "ember/core/tensor.h"

namespace ember::cuda {

// Whether batch_norm on x (CUDA, float32 or float64, non-empty, sizes within
// cuDNN's ints), with these running statistics (both undefined, or
// contiguous), goes through cuDNN: the switch is on and cuDNN can take it.
bool cudnn_batch_norm_applies(const Tensor& x, const Tensor& running_mean,
                              const Tensor& running_var);

// y, mean and invstd (1 / sqrt(biased var + eps)) as batch_norm_train_forward;
// the running statistics, when defined, are updated in place by cuDNN:
// running = (1 - momentum) * running + momentum * batch, the unbiased
// variance for running_var (as PyTorch).
void cudnn_batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    double eps, double momentum, const Tensor& running_mean,
                                    const Tensor& running_var, const Tensor& y,
                                    const Tensor& mean, const Tensor& invstd);

// Training-mode gradients from the saved batch statistics; dx, dweight and
// dbias each optional (undefined: not wanted).
void cudnn_batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                               const Tensor& invstd, const Tensor& weight, double eps,
                               const Tensor& dx, const Tensor& dweight, const Tensor& dbias);

}  // namespace ember::cuda
