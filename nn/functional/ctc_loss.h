#pragma once
// Connectionist temporal classification loss, as torch::nn::functional's:
//   F::ctc_loss(log_probs, targets, input_lengths, target_lengths,
//               F::CTCLossFuncOptions().zero_infinity(true));
#include "ember/core/tensor.h"
#include "ember/nn/options/ctc_loss.h"

namespace ember::nn::functional {

// log_probs: (T, N, C) log-probabilities (log_softmax over C), or (T, C) for
// one sample. targets: int64 (N, S) padded, or 1-d, the N targets one after
// another, labels in [0, C). input_lengths, target_lengths: int64 (N)
// (0-d for one sample), read on the host. Returns -log p(target | input)
// summed over every alignment, reduced; kNone gives (N). Composed of ember
// ops, one step per frame: the gradient is the true one with respect to
// log_probs (libtorch's adds exp(log_probs), which a log_softmax before it
// cancels), and it differentiates twice.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace ember::nn::functional
