#include "ember/nn/modules/linear.h"

#include <cmath>

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"

namespace ember::nn {

Tensor IdentityImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return x; });
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "Identity()"; }

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "Linear: in_features and out_features must be non-negative, got ",
              options.in_features(), " and ", options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

// PyTorch's default: kaiming_uniform_(a = sqrt(5)) gives U(-1/sqrt(fan_in),
// 1/sqrt(fan_in)) for the weight, and the bias draws from the same range.
void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = options.in_features();
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return functional::linear(x, weight, bias); });
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : options(options_) {}

Tensor FlattenImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return x.flatten(options.start_dim(), options.end_dim());
  });
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim()
         << ")";
}

}  // namespace ember::nn
