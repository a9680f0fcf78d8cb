#pragma once
// Dropout: while training, zeroes each element with probability p and scales
// the rest by 1/(1-p); the mask comes from the default generator (Philox).
#include "ember/core/tensor.h"

namespace ember {

Tensor dropout(const Tensor& input, double p, bool train);
Tensor& dropout_(Tensor& input, double p, bool train);

}  // namespace ember
