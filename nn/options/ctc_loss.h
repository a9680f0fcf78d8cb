#pragma once
// Options of ctc_loss and CTCLoss, as libtorch's.
#include <cstdint>

#include "ember/nn/options/arg.h"
#include "ember/nn/options/reduction.h"

namespace ember::nn {

// blank: the blank class; kMean divides each sample's loss by its target
// length (at least 1) before the batch mean; zero_infinity replaces infinite
// losses (targets too long for their inputs) and their gradients by 0.
struct CTCLossOptions {
  EMBER_ARG(int64_t, blank) = 0;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(bool, zero_infinity) = false;
};

namespace functional {
using CTCLossFuncOptions = CTCLossOptions;
}  // namespace functional

}  // namespace ember::nn
