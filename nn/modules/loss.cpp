#include "ember/nn/modules/loss.h"

#include "ember/nn/functional/loss.h"

namespace ember::nn {

namespace F = functional;

MSELossImpl::MSELossImpl(const MSELossOptions& options_) : options(options_) {}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}
void MSELossImpl::pretty_print(std::ostream& stream) const { stream << "MSELoss()"; }

L1LossImpl::L1LossImpl(const L1LossOptions& options_) : options(options_) {}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}
void L1LossImpl::pretty_print(std::ostream& stream) const { stream << "L1Loss()"; }

SmoothL1LossImpl::SmoothL1LossImpl(const SmoothL1LossOptions& options_) : options(options_) {}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "SmoothL1Loss(beta=" << options.beta() << ")";
}

// The weighted losses read their weights from the buffers, which to() converts.

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) {
  weight = register_buffer("weight", options.weight());
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, NLLLossOptions(options).weight(weight));
}
void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << "NLLLoss()"; }

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_)
    : options(options_) {
  weight = register_buffer("weight", options.weight());
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, CrossEntropyLossOptions(options).weight(weight));
}
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "CrossEntropyLoss()";
}

BCELossImpl::BCELossImpl(const BCELossOptions& options_) : options(options_) {
  weight = register_buffer("weight", options.weight());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, BCELossOptions(options).weight(weight));
}
void BCELossImpl::pretty_print(std::ostream& stream) const { stream << "BCELoss()"; }

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_)
    : options(options_) {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(
      input, target, BCEWithLogitsLossOptions(options).weight(weight).pos_weight(pos_weight));
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << "BCEWithLogitsLoss()";
}

}  // namespace ember::nn
