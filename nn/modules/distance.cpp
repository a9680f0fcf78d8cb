#include "ember/nn/modules/distance.h"

#include "ember/nn/functional/distance.h"

namespace ember::nn {

CosineSimilarityImpl::CosineSimilarityImpl(const CosineSimilarityOptions& options_)
    : options(options_) {}
Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::cosine_similarity(x1, x2, options);
}
void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

PairwiseDistanceImpl::PairwiseDistanceImpl(const PairwiseDistanceOptions& options_)
    : options(options_) {}
Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::pairwise_distance(x1, x2, options);
}
void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << "PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
         << ", keepdim=" << std::boolalpha << options.keepdim() << ")";
}

}  // namespace ember::nn
