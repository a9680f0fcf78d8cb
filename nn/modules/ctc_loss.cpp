#include "ember/nn/modules/ctc_loss.h"

#include "ember/nn/functional/ctc_loss.h"

namespace ember::nn {

CTCLossImpl::CTCLossImpl(const CTCLossOptions& options_) : options(options_) {}
Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets,
                            const Tensor& input_lengths, const Tensor& target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}
void CTCLossImpl::pretty_print(std::ostream& stream) const { stream << "CTCLoss()"; }

}  // namespace ember::nn
