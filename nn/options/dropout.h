#pragma once
// Options of Dropout and F::dropout, as libtorch's.
#include "ember/nn/options/arg.h"

namespace ember::nn {

// p: the probability of zeroing an element.
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

namespace functional {

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace ember::nn
