#pragma once
// Batch, layer and group normalization, as torch::nn::functional's:
//   F::batch_norm(x, mean, var, F::BatchNormFuncOptions().training(true));
#include "ember/core/tensor.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn::functional {

// x: (N, C, *). running_mean/var: (C), updated in place while training
// (either may be undefined only when training).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
// x: (N, C, *), C divisible by num_groups.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
// x: (N, C, *): each (sample, channel) normalized over its elements (group_norm
// with one channel per group), then weight and bias per channel.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

}  // namespace ember::nn::functional
