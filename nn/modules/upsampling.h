#pragma once
// Upsample (nearest, bilinear), as torch::nn's.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn {

class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  // x: (N, C, H, W) -> (N, C, H', W').
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
