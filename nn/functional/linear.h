#pragma once
// F::linear, as torch::nn::functional::linear.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

// x: (*, in), weight: (out, in), bias: (out) or undefined -> (*, out).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

}  // namespace ember::nn::functional
