#pragma once
// MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d and AdaptiveMaxPool1d/2d,
// as torch::nn's. The 1d layers take (N, C, L) or (C, L), the 2d ones
// (N, C, H, W) or (C, H, W).
#include <ostream>
#include <tuple>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn {

template <size_t D>
class MaxPoolImpl : public Module {
 public:
  explicit MaxPoolImpl(ExpandingArray<D> kernel_size)
      : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPoolOptions<D> options;
};
using MaxPool1dImpl = MaxPoolImpl<1>;
using MaxPool2dImpl = MaxPoolImpl<2>;
EMBER_MODULE(MaxPool1d);
EMBER_MODULE(MaxPool2d);

template <size_t D>
class AvgPoolImpl : public Module {
 public:
  explicit AvgPoolImpl(ExpandingArray<D> kernel_size)
      : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPoolOptions<D> options;
};
using AvgPool1dImpl = AvgPoolImpl<1>;
using AvgPool2dImpl = AvgPoolImpl<2>;
EMBER_MODULE(AvgPool1d);
EMBER_MODULE(AvgPool2d);

template <size_t D>
class AdaptiveAvgPoolImpl : public Module {
 public:
  explicit AdaptiveAvgPoolImpl(ExpandingArray<D> output_size)
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<D>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<D>& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPoolOptions<D> options;
};
using AdaptiveAvgPool1dImpl = AdaptiveAvgPoolImpl<1>;
using AdaptiveAvgPool2dImpl = AdaptiveAvgPoolImpl<2>;
EMBER_MODULE(AdaptiveAvgPool1d);
EMBER_MODULE(AdaptiveAvgPool2d);

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
