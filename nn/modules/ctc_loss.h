#pragma once
// nn::CTCLoss, as torch::nn's: forward(log_probs, targets, input_lengths,
// target_lengths) calls F::ctc_loss with the module's options.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/ctc_loss.h"

namespace ember::nn {

class CTCLossImpl : public Module {
 public:
  explicit CTCLossImpl(const CTCLossOptions& options = {});
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  void pretty_print(std::ostream& stream) const override;

  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);

}  // namespace ember::nn
