#pragma once
// A new layer with `layer`'s options and a copy of its parameters and buffers
// (PyTorch's deepcopy, libtorch's clone()): how the transformer stacks fill
// themselves with num_layers equal layers.
#include "ember/autograd/grad_mode.h"

namespace ember::nn::detail {

template <typename Holder>
Holder copy_of(const Holder& layer) {
  Holder copy(layer->options);
  NoGradGuard no_grad;
  const auto params = layer->named_parameters(), buffers = layer->named_buffers();
  for (auto& item : copy->named_parameters()) Tensor(item.value()).copy_(params[item.key()]);
  for (auto& item : copy->named_buffers()) Tensor(item.value()).copy_(buffers[item.key()]);
  return copy;
}

}  // namespace ember::nn::detail
