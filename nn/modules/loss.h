#pragma once
// The loss modules, as torch::nn's: each holds its options (and its weight
// tensors as buffers, so module.to(dtype) converts them) and forwards to
// nn::functional (nn/functional/loss.h):
//   nn::CrossEntropyLoss criterion(nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   Tensor loss = criterion(logits, labels);
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class L1LossImpl : public Module {
 public:
  explicit L1LossImpl(const L1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

class SmoothL1LossImpl : public Module {
 public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  NLLLossOptions options;
  Tensor weight;  // buffer "weight" (undefined: none)
};
EMBER_MODULE(NLLLoss);

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  CrossEntropyLossOptions options;
  Tensor weight;  // buffer "weight" (undefined: none)
};
EMBER_MODULE(CrossEntropyLoss);

class BCELossImpl : public Module {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  BCELossOptions options;
  Tensor weight;  // buffer "weight" (undefined: none)
};
EMBER_MODULE(BCELoss);

class BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;

  BCEWithLogitsLossOptions options;
  Tensor weight;      // buffer "weight" (undefined: none)
  Tensor pos_weight;  // buffer "pos_weight" (undefined: none)
};
EMBER_MODULE(BCEWithLogitsLoss);

}  // namespace ember::nn
