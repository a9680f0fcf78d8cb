#pragma once
// Activation layers, as torch::nn's: ReLU, LeakyReLU, GELU, Sigmoid, Tanh, Softmax,
// SiLU, Mish, ELU, SELU, CELU, Softplus, Hardtanh, ReLU6, Hardsigmoid, Hardswish,
// LogSigmoid, Softsign, Tanhshrink, Softshrink, Hardshrink.
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

class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(SiLU);

class MishImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Mish);

class HardsigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Hardsigmoid);

class HardswishImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Hardswish);

class LogSigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(LogSigmoid);

class SoftsignImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Softsign);

class TanhshrinkImpl : public Module {
 public:
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanhshrink);

class ELUImpl : public Module {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ELUOptions options;
};
EMBER_MODULE(ELU);

class SELUImpl : public Module {
 public:
  explicit SELUImpl(const SELUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  SELUOptions options;
};
EMBER_MODULE(SELU);

class CELUImpl : public Module {
 public:
  explicit CELUImpl(const CELUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  CELUOptions options;
};
EMBER_MODULE(CELU);

class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

class HardtanhImpl : public Module {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

class ReLU6Impl : public Module {
 public:
  explicit ReLU6Impl(const ReLU6Options& options = {}) : options(options) {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  ReLU6Options options;
};
EMBER_MODULE(ReLU6);

class SoftshrinkImpl : public Module {
 public:
  explicit SoftshrinkImpl(const SoftshrinkOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  SoftshrinkOptions options;
};
EMBER_MODULE(Softshrink);

class HardshrinkImpl : public Module {
 public:
  explicit HardshrinkImpl(const HardshrinkOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  HardshrinkOptions options;
};
EMBER_MODULE(Hardshrink);

}  // namespace ember::nn
