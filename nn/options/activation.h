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

struct ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct CELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};

struct HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

struct SoftshrinkOptions {
  SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

namespace functional {

using ReLUFuncOptions = ReLUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using GELUFuncOptions = GELUOptions;
using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using CELUFuncOptions = CELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using HardtanhFuncOptions = HardtanhOptions;
using ReLU6FuncOptions = ReLU6Options;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using HardshrinkFuncOptions = HardshrinkOptions;

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  // Computes in this dtype (the input is converted first), as libtorch.
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

}  // namespace functional
}  // namespace ember::nn
