#include "ember/nn/modules/dropout.h"

#include "ember/nn/functional/dropout.h"

namespace ember::nn {

namespace {
void check_probability(const char* layer, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, layer, ": probability has to be between 0 and 1, but got ", p);
}
}  // namespace

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  check_probability("Dropout", options.p());
}

Tensor DropoutImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return functional::dropout(x, functional::DropoutFuncOptions()
                                      .p(options.p())
                                      .training(is_training())
                                      .inplace(options.inplace()));
  });
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Dropout(p=" << options.p() << ", inplace=" << options.inplace()
         << ")";
}

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) {
  check_probability("Dropout2d", options.p());
}

Tensor Dropout2dImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return functional::dropout2d(x, functional::Dropout2dFuncOptions()
                                        .p(options.p())
                                        .training(is_training())
                                        .inplace(options.inplace()));
  });
}

void Dropout2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Dropout2d(p=" << options.p() << ", inplace=" << options.inplace()
         << ")";
}

}  // namespace ember::nn
