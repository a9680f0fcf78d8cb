#pragma once
// Options of Linear and Flatten, as libtorch's.
#include <cstdint>

#include "ember/nn/options/arg.h"

namespace ember::nn {

// y = x W^T + b; W: (out_features, in_features), b: (out_features).
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

// Flattens dims start_dim..end_dim into one (the batch dim 0 stays by default).
struct FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;
  EMBER_ARG(int64_t, end_dim) = -1;
};

}  // namespace ember::nn
