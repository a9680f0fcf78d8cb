#pragma once
// Dropout, as torch::nn's: active while training, the identity in eval().
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

}  // namespace ember::nn
