#include "ember/nn/functional/linear.h"

#include "ember/core/ops/linalg/matmul.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, bias);
}

}  // namespace ember::nn::functional
