#pragma once
// Options of the padding layers and F::pad, as libtorch's:
//   ReflectionPad2dOptions({1, 1, 2, 0}), ConstantPad2dOptions(3, 0.5),
//   F::PadFuncOptions({1, 2}).mode(ember::kReplicate)
// Pads run last dim first: {left, right} in 1-d, {left, right, top, bottom} in 2-d.
#include <cstdint>
#include <vector>

#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/expanding_array.h"

namespace ember::nn {

template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2 * D>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;

template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2 * D>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value)
      : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<2 * D>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;

struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<4>, padding);
};

namespace functional {

struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(PadMode, mode) = kConstant;
  EMBER_ARG(double, value) = 0.0;
};

}  // namespace functional
}  // namespace ember::nn
