#pragma once
// Options of the 1-d and 2-d pooling layers and their functional forms, as libtorch's.
// The functional options are the same structs (F::MaxPool2dFuncOptions, ...).
#include <optional>

#include "ember/nn/options/arg.h"
#include "ember/nn/options/expanding_array.h"

namespace ember::nn {

// stride: the kernel size unless set.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <size_t D>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(ExpandingArray<D> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;

template <size_t D>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(ExpandingArray<D> output_size)  // NOLINT
      : output_size_(output_size) {}
  EMBER_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<2>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
}  // namespace functional
}  // namespace ember::nn
