#pragma once
// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d, as torch::nn's.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn {

class MaxPool2dImpl : public Module {
 public:
  explicit MaxPool2dImpl(ExpandingArray<2> kernel_size)
      : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  // x: (N, C, H, W) or (C, H, W).
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size)
      : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(ExpandingArray<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::nn
