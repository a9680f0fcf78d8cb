#pragma once
// LayerNorm and GroupNorm, as torch::nn's: weight (ones) and bias (zeros), of
// normalized_shape (LayerNorm, when elementwise_affine) or of the channels
// (GroupNorm, when affine).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options);

  // Normalizes over the trailing dims normalized_shape.
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(LayerNorm);

class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);

  // x: (N, C, *): each sample's groups of C / num_groups channels normalized.
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(GroupNorm);

// InstanceNorm1d takes (N, C, L) or (C, L), InstanceNorm2d (N, C, H, W) or
// (C, H, W); weight (ones) and bias (zeros) of C when affine.
template <size_t D>
class InstanceNormImpl : public Module {
 public:
  InstanceNormImpl(int64_t num_features)  // NOLINT
      : InstanceNormImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  InstanceNormOptions options;
  Tensor weight;
  Tensor bias;
};
using InstanceNorm1dImpl = InstanceNormImpl<1>;
using InstanceNorm2dImpl = InstanceNormImpl<2>;
EMBER_MODULE(InstanceNorm1d);
EMBER_MODULE(InstanceNorm2d);

}  // namespace ember::nn
