#pragma once
// MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d and AdaptiveMaxPool1d/2d,
// as torch::nn's.
#include <ostream>
#include <tuple>

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

// x: (N, C, L) or (C, L).
class MaxPool1dImpl : public Module {
 public:
  explicit MaxPool1dImpl(ExpandingArray<1> kernel_size)
      : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool1dOptions options;
};
EMBER_MODULE(MaxPool1d);

class AvgPool1dImpl : public Module {
 public:
  explicit AvgPool1dImpl(ExpandingArray<1> kernel_size)
      : AvgPool1dImpl(AvgPool1dOptions(kernel_size)) {}
  explicit AvgPool1dImpl(const AvgPool1dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool1dOptions options;
};
EMBER_MODULE(AvgPool1d);

class AdaptiveAvgPool1dImpl : public Module {
 public:
  explicit AdaptiveAvgPool1dImpl(ExpandingArray<1> output_size)
      : AdaptiveAvgPool1dImpl(AdaptiveAvgPool1dOptions(output_size)) {}
  explicit AdaptiveAvgPool1dImpl(const AdaptiveAvgPool1dOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool1dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool1d);

// forward_with_indices also returns the argmax positions (flat in each plane).
template <size_t D>
class AdaptiveMaxPoolImpl : public Module {
 public:
  explicit AdaptiveMaxPoolImpl(ExpandingArray<D> output_size)
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<D>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveMaxPoolOptions<D> options;
};
using AdaptiveMaxPool1dImpl = AdaptiveMaxPoolImpl<1>;
using AdaptiveMaxPool2dImpl = AdaptiveMaxPoolImpl<2>;
EMBER_MODULE(AdaptiveMaxPool1d);
EMBER_MODULE(AdaptiveMaxPool2d);

}  // namespace ember::nn
