#pragma once
// F::dropout, as torch::nn::functional::dropout.
#include "ember/core/tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn::functional {

// inplace: overwrites input (bumping its version) and returns it.
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});

}  // namespace ember::nn::functional
