#pragma once
// F::dropout and F::dropout2d, as torch::nn::functional's.
#include "ember/core/tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn::functional {

// inplace: overwrites input (bumping its version) and returns it.
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
// Zeroes whole channels of an (N, C, H, W) or (C, H, W) input (PyTorch 2's
// reading of a 3-d input; 1.13 read it as (N, C, L)).
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});

}  // namespace ember::nn::functional
