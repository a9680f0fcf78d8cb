#pragma once
// Dropout: while training, zeroes each element with probability p and scales
// the rest by 1/(1-p); the mask comes from the default generator (Philox).
#include "ember/core/tensor.h"

namespace ember {

Tensor dropout(const Tensor& input, double p, bool train);
Tensor& dropout_(Tensor& input, double p, bool train);

// Channel dropout, as torch::feature_dropout (Dropout2d): zeroes whole
// channels, dim 1 of an (N, C, *) input, each with probability p; the rest
// are scaled by 1/(1-p).
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor& feature_dropout_(Tensor& input, double p, bool train);

}  // namespace ember
