#pragma once
// Options of the activation layers and their functional forms, as libtorch's.
#include <cstdint>
#include <optional>
#include <string>

#include "ember/core/dtype.h"
#include "ember/nn/options/arg.h"

namespace ember::nn {

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct LeakyReLUOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};

// approximate: "none" (the erf form) or "tanh".
struct GELUOptions {
  EMBER_ARG(std::string, approximate) = "none";
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

namespace functional {

using ReLUFuncOptions = ReLUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using GELUFuncOptions = GELUOptions;

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  // Computes in this dtype (the input is converted first), as libtorch.
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

}  // namespace functional
}  // namespace ember::nn
