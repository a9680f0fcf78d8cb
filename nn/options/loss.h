#pragma once
// Options of the loss functions and modules, as libtorch's: chained setters
//   CrossEntropyLossOptions().ignore_index(-1).label_smoothing(0.1).reduction(ember::kSum)
// and getters of the same name. The functional forms take the same structs
// under libtorch's names (nn::functional::CrossEntropyFuncOptions, ...).
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/reduction.h"

namespace ember::nn {

struct MSELossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct L1LossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
};

// |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta (beta = 0: the L1 loss).
struct SmoothL1LossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, beta) = 1.0;
};

// input: log-probabilities. weight: (C) per-class rescaling, undefined for none.
struct NLLLossOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// input: unnormalized scores (logits). label_smoothing in [0, 1] mixes the
// target with the uniform distribution over the C classes.
struct CrossEntropyLossOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

// input: probabilities in [0, 1]. weight: broadcast to the input, undefined for none.
struct BCELossOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Reduction, reduction) = kMean;
};

// input: logits. pos_weight: the positive examples' weight, broadcast along
// the last dim (one per class), undefined for none.
struct BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(Tensor, pos_weight) = {};
};

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace ember::nn

