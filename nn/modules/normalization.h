#pragma once
// LayerNorm, as torch::nn's: weight (ones) and bias (zeros) of
// normalized_shape when elementwise_affine.
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

}  // namespace ember::nn
