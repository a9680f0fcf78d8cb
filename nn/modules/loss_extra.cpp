#include "ember/nn/modules/loss_extra.h"

#include "ember/core/error.h"
#include "ember/nn/functional/loss_extra.h"

namespace ember::nn {

namespace F = functional;

KLDivLossImpl::KLDivLossImpl(const KLDivLossOptions& options_) : options(options_) {}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}
void KLDivLossImpl::pretty_print(std::ostream& stream) const { stream << "KLDivLoss()"; }

HuberLossImpl::HuberLossImpl(const HuberLossOptions& options_) : options(options_) {}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options);
}
void HuberLossImpl::pretty_print(std::ostream& stream) const {
  stream << "HuberLoss(delta=" << options.delta() << ")";
}

SoftMarginLossImpl::SoftMarginLossImpl(const SoftMarginLossOptions& options_) : options(options_) {}
Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options);
}
void SoftMarginLossImpl::pretty_print(std::ostream& stream) const { stream << "SoftMarginLoss()"; }

HingeEmbeddingLossImpl::HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options_)
    : options(options_) {}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options);
}
void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "HingeEmbeddingLoss(margin=" << options.margin() << ")";
}

PoissonNLLLossImpl::PoissonNLLLossImpl(const PoissonNLLLossOptions& options_) : options(options_) {}
Tensor PoissonNLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::poisson_nll_loss(input, target, options);
}
void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const { stream << "PoissonNLLLoss()"; }

MultiLabelMarginLossImpl::MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& options_)
    : options(options_) {}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, options);
}
void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "MultiLabelMarginLoss()";
}

// The weighted losses read their weights from the buffers, which to() converts.

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(
    const MultiLabelSoftMarginLossOptions& options_)
    : options(options_) {
  weight = register_buffer("weight", options.weight());
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target,
                                        MultiLabelSoftMarginLossOptions(options).weight(weight));
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "MultiLabelSoftMarginLoss()";
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options_)
    : options(options_) {
  weight = register_buffer("weight", options.weight());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, MultiMarginLossOptions(options).weight(weight));
}
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin() << ")";
}

MarginRankingLossImpl::MarginRankingLossImpl(const MarginRankingLossOptions& options_)
    : options(options_) {}
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                      const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options);
}
void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "MarginRankingLoss(margin=" << options.margin() << ")";
}

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options_)
    : options(options_) {}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                        const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options);
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "CosineEmbeddingLoss(margin=" << options.margin() << ")";
}

GaussianNLLLossImpl::GaussianNLLLossImpl(const GaussianNLLLossOptions& options_)
    : options(options_) {}
Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options);
}
void GaussianNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "GaussianNLLLoss()";
}

TripletMarginLossImpl::TripletMarginLossImpl(const TripletMarginLossOptions& options_)
    : options(options_) {}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                      const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options);
}
void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "TripletMarginLoss(margin=" << options.margin() << ", p=" << options.p()
         << ", eps=" << options.eps() << ", swap=" << std::boolalpha << options.swap() << ")";
}

TripletMarginWithDistanceLossImpl::TripletMarginWithDistanceLossImpl(
    const TripletMarginWithDistanceLossOptions& options_)
    : options(options_) {
  EMBER_CHECK(options.margin() > 0,
              "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got ",
              options.margin());
}
Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return F::triplet_margin_with_distance_loss(anchor, positive, negative, options);
}
void TripletMarginWithDistanceLossImpl::pretty_print(std::ostream& stream) const {
  stream << "TripletMarginWithDistanceLoss(margin=" << options.margin()
         << ", swap=" << std::boolalpha << options.swap() << ")";
}

}  // namespace ember::nn
