#pragma once
// The loss modules of nn/functional/loss_extra.h, as torch::nn's: each holds
// its options (weights as buffers, so to(dtype) converts them) and forwards
// to the functional form:
//   nn::TripletMarginLoss criterion(nn::TripletMarginLossOptions().margin(0.5));
//   Tensor loss = criterion(anchor, positive, negative);
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/loss_extra.h"

namespace ember::nn {

// A loss module of two inputs (input, target) with no buffers.
#define EMBER_LOSS_MODULE_2(Name)                              \
  class Name##Impl : public Module {                           \
   public:                                                     \
    explicit Name##Impl(const Name##Options& options = {});    \
    Tensor forward(const Tensor& input, const Tensor& target); \
    void pretty_print(std::ostream& stream) const override;    \
                                                               \
    Name##Options options;                                     \
  };                                                           \
  EMBER_MODULE(Name)

EMBER_LOSS_MODULE_2(KLDivLoss);
EMBER_LOSS_MODULE_2(HuberLoss);
EMBER_LOSS_MODULE_2(SoftMarginLoss);
EMBER_LOSS_MODULE_2(HingeEmbeddingLoss);
EMBER_LOSS_MODULE_2(PoissonNLLLoss);
EMBER_LOSS_MODULE_2(MultiLabelMarginLoss);

#undef EMBER_LOSS_MODULE_2

class MultiLabelSoftMarginLossImpl : public Module {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  MultiLabelSoftMarginLossOptions options;
  Tensor weight;  // buffer "weight" (undefined: none)
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

class MultiMarginLossImpl : public Module {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  MultiMarginLossOptions options;
  Tensor weight;  // buffer "weight" (undefined: none)
};
EMBER_MODULE(MultiMarginLoss);

class MarginRankingLossImpl : public Module {
 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

class CosineEmbeddingLossImpl : public Module {
 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

// Python PyTorch's (libtorch 1.13 has none).
class GaussianNLLLossImpl : public Module {
 public:
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  void pretty_print(std::ostream& stream) const override;

  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

class TripletMarginLossImpl : public Module {
 public:
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  void pretty_print(std::ostream& stream) const override;

  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

// The constructor refuses margin <= 0, as PyTorch's module.
class TripletMarginWithDistanceLossImpl : public Module {
 public:
  explicit TripletMarginWithDistanceLossImpl(
      const TripletMarginWithDistanceLossOptions& options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  void pretty_print(std::ostream& stream) const override;

  TripletMarginWithDistanceLossOptions options;
};
EMBER_MODULE(TripletMarginWithDistanceLoss);

}  // namespace ember::nn
