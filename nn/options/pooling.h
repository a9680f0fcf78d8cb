#pragma once
// Options of the 2-D pooling layers and their functional forms, as libtorch's.
// The functional options are the same structs (F::MaxPool2dFuncOptions, ...).
#include <optional>

#include "ember/nn/options/arg.h"
#include "ember/nn/options/expanding_array.h"

namespace ember::nn {

// stride: the kernel size unless set.
struct MaxPool2dOptions {
  MaxPool2dOptions(ExpandingArray<2> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};

struct AvgPool2dOptions {
  AvgPool2dOptions(ExpandingArray<2> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride);
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
};

struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(ExpandingArray<2> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
};

namespace functional {
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
}  // namespace functional
}  // namespace ember::nn
