#pragma once
// Identity, Linear and Flatten, as torch::nn's.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/linear.h"

namespace ember::nn {

// Returns its input.
class IdentityImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Identity);

// y = x W^T + b. weight: (out_features, in_features), bias: (out_features),
// both U(-1/sqrt(in_features), 1/sqrt(in_features)) as PyTorch's default.
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  // x: (*, in_features) -> (*, out_features).
  Tensor forward(const Tensor& input);
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Linear);

class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

}  // namespace ember::nn
