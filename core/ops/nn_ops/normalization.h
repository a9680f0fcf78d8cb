#pragma once
// Batch, layer and group normalization, as torch::batch_norm / layer_norm /
// group_norm.
#include "ember/core/tensor.h"

namespace ember {

// x: (N, C, *). weight, bias, running_mean, running_var: (C) or undefined.
// training: normalize with the batch statistics and, when running stats are
// given, update them in place: running = (1 - momentum) * running + momentum *
// batch, with the unbiased batch variance for running_var (as PyTorch).
// Not training: normalize with the running statistics. cudnn_enabled is
// accepted for libtorch's signature; whether CUDA tensors go through cuDNN is
// backends::cudnn::set_batch_norm_enabled's to say.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled = true);

// relu(batch_norm(...)), arguments as batch_norm's. In training on a device
// with the fused kernels (the CPU), one pass writes the relu'd output and
// backward recomputes relu's mask from x, so the batch norm's output is never
// stored nor read again; elsewhere it is relu(batch_norm(...)). ember's own
// (Sequential runs a BatchNorm -> ReLU pair through it in training).
Tensor batch_norm_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const Tensor& running_mean, const Tensor& running_var, bool training,
                       double momentum, double eps);

// Normalizes over the trailing dims given by normalized_shape.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);

// x: (N, C, *) with C divisible by num_groups; weight, bias: (C) or undefined.
// Normalizes each sample's groups of C / num_groups channels (with their *
// elements) by their own mean and biased variance, then scales and shifts
// per channel. Built on layer_norm's kernels and derivatives.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);

}  // namespace ember
