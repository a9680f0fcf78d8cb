#pragma once
// Options of Conv1d / Conv2d / ConvTranspose1d / ConvTranspose2d and of their
// functional forms, as libtorch's: Conv2dOptions(3, 32, 3).stride(2).padding(1).bias(false).
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/expanding_array.h"

namespace ember {

// Conv padding given by name, as libtorch's torch::kValid (none) and
// torch::kSame (the output keeps the input's size; stride 1 only).
namespace enumtype {
struct kValid {};
struct kSame {};
}  // namespace enumtype
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};

namespace nn {

// A conv's padding: numbers (one for both dims or {h, w}), kValid or kSame.
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;

// The padding setter and getter of the conv options: padding(1), padding({1, 2}),
// padding(ember::kSame); padding() returns the variant, as libtorch's.
#define EMBER_CONV_PADDING_ARG(Options, D)                                  \
 public:                                                                    \
  Options& padding(conv_padding_t<D> new_padding) {                         \
    padding_ = std::move(new_padding);                                      \
    return *this;                                                           \
  }                                                                         \
  Options& padding(std::initializer_list<int64_t> new_padding) {            \
    padding_ = ExpandingArray<D>(new_padding);                              \
    return *this;                                                           \
  }                                                                         \
  const conv_padding_t<D>& padding() const noexcept { return padding_; }    \
                                                                            \
 private:                                                                   \
  conv_padding_t<D> padding_ = ExpandingArray<D>(0)

// weight: (out_channels, in_channels / groups, kL).
struct Conv1dOptions {
  Conv1dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<1>, kernel_size);
  EMBER_ARG(ExpandingArray<1>, stride) = 1;
  EMBER_CONV_PADDING_ARG(Conv1dOptions, 1);
  EMBER_ARG(ExpandingArray<1>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(PadMode, padding_mode) = kZeros;
};

// weight: (out_channels, in_channels / groups, kH, kW).
struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_CONV_PADDING_ARG(Conv2dOptions, 2);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  // How the padding is filled: kZeros, kReflect, kReplicate or kCircular (the
  // last three pad the input with ember::pad, then convolve without padding).
  EMBER_ARG(PadMode, padding_mode) = kZeros;
};

// weight: (in_channels, out_channels / groups, kL) (the transposed conv's layout).
struct ConvTranspose1dOptions {
  ConvTranspose1dOptions(int64_t in_channels, int64_t out_channels,
                         ExpandingArray<1> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<1>, kernel_size);
  EMBER_ARG(ExpandingArray<1>, stride) = 1;
  EMBER_ARG(ExpandingArray<1>, padding) = 0;
  EMBER_ARG(ExpandingArray<1>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<1>, dilation) = 1;
};

// weight: (in_channels, out_channels / groups, kH, kW) (the transposed conv's layout).
struct ConvTranspose2dOptions {
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels,
                         ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
};

namespace functional {

struct Conv1dFuncOptions {
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<1>, stride) = 1;
  EMBER_CONV_PADDING_ARG(Conv1dFuncOptions, 1);
  EMBER_ARG(ExpandingArray<1>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};

struct Conv2dFuncOptions {
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_CONV_PADDING_ARG(Conv2dFuncOptions, 2);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};

struct ConvTranspose1dFuncOptions {
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<1>, stride) = 1;
  EMBER_ARG(ExpandingArray<1>, padding) = 0;
  EMBER_ARG(ExpandingArray<1>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<1>, dilation) = 1;
};

struct ConvTranspose2dFuncOptions {
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
};

}  // namespace functional
}  // namespace nn
}  // namespace ember
