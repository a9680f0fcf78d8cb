#pragma once
// Conv1d, Conv2d, ConvTranspose1d and ConvTranspose2d, as torch::nn's.
#include <ostream>
#include <type_traits>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/conv.h"

namespace ember::nn {

// weight: (out, in / groups, kL), bias: (out), initialized as Conv2d's.
class Conv1dImpl : public Module {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options);

  // x: (N, C, L) or (C, L) -> (N, out, L') or (out, L').
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Conv1dOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Conv1d);

// weight: (out, in / groups, kH, kW), bias: (out); both U(-1/sqrt(fan_in),
// 1/sqrt(fan_in)) with fan_in = in / groups * kH * kW, as PyTorch's default.
class Conv2dImpl : public Module {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);

  // x: (N, C, H, W) -> (N, out, H', W').
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Conv2dOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Conv2d);

// weight: (in, out / groups, kH, kW), bias: (out). Initialized as PyTorch,
// whose fan_in for this layout is out / groups * kH * kW.
// ConvTranspose1d (weight (in, out / groups, kL)) has the same form.
template <size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  using Options = std::conditional_t<D == 1, ConvTranspose1dOptions, ConvTranspose2dOptions>;
  ConvTransposeNdImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeNdImpl(Options(in_channels, out_channels, kernel_size)) {}
  explicit ConvTransposeNdImpl(const Options& options);

  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Options options;
  Tensor weight;
  Tensor bias;
};
using ConvTranspose1dImpl = ConvTransposeNdImpl<1>;
using ConvTranspose2dImpl = ConvTransposeNdImpl<2>;
EMBER_MODULE(ConvTranspose1d);
EMBER_MODULE(ConvTranspose2d);

}  // namespace ember::nn
