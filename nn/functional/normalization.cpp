#include "ember/nn/functional/normalization.h"

#include "ember/core/ops/nn_ops/normalization.h"

namespace ember::nn::functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  return ember::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                           options.training(), options.momentum(), options.eps());
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return ember::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                           options.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return ember::group_norm(input, options.num_groups(), options.weight(), options.bias(),
                           options.eps());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  EMBER_CHECK(input.dim() >= 2, "instance_norm: expected an input of shape (N, C, *), got ",
              input.sizes());
  return ember::group_norm(input, input.size(1), options.weight(), options.bias(), options.eps());
}

}  // namespace ember::nn::functional
