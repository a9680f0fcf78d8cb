#pragma once
// Padding, as torch::nn::functional::pad:
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(ember::kReflect));
// The rules are ember::pad's (core/ops/nn_ops/pad.h).
#include "ember/core/tensor.h"
#include "ember/nn/options/padding.h"

namespace ember::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace ember::nn::functional
