#pragma once
// Activation layers, as torch::nn's: ReLU, LeakyReLU, GELU, Sigmoid, Tanh, Softmax.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/activation.h"

namespace ember::nn {

class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

// x for x >= 0, negative_slope * x below.
class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

class GELUImpl : public Module {
 public:
  explicit GELUImpl(const GELUOptions& options = {});
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Sigmoid);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanh);

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

}  // namespace ember::nn
