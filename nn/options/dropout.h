#pragma once
// Options of Dropout / Dropout2d and F::dropout / F::dropout2d, as libtorch's.
#include "ember/nn/options/arg.h"

namespace ember::nn {

// p: the probability of zeroing an element.
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;

namespace functional {

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;

}  // namespace functional
}  // namespace ember::nn
