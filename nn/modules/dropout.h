#pragma once
// Dropout and Dropout2d, as torch::nn's: active while training, the identity
// in eval().
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn {

class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  DropoutOptions options;
};
EMBER_MODULE(Dropout);

// Zeroes whole channels of (N, C, H, W) or (C, H, W) inputs (F::dropout2d).
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

}  // namespace ember::nn
