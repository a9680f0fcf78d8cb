#pragma once
// nn::CosineSimilarity and nn::PairwiseDistance, as torch::nn's: forward(x1, x2)
// calls F::cosine_similarity / F::pairwise_distance with the module's options.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/distance.h"

namespace ember::nn {

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;

  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);
  void pretty_print(std::ostream& stream) const override;

  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
