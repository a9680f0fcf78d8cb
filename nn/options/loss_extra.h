#pragma once
// Options of the losses in nn/functional/loss_extra.h and their modules, as
// libtorch's (same names, defaults and FuncOptions aliases):
//   F::kl_div(logp, q, F::KLDivFuncOptions().reduction(ember::kBatchMean).log_target(true));
#include <cstdint>
#include <functional>
#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"
#include "ember/nn/options/reduction.h"

namespace ember {

// kl_div's fourth reduction, libtorch's torch::kBatchMean: the sum divided by
// the batch size input.size(0).
struct BatchMean {};
inline constexpr BatchMean kBatchMean{};

// kNone, kMean, kSum or kBatchMean (libtorch's variant of the four).
class KLDivReduction {
 public:
  // Implicit: reduction(ember::kSum) and reduction(ember::kBatchMean) both work, as in libtorch.
  KLDivReduction(Reduction r) : reduction_(r) {}                                // NOLINT
  KLDivReduction(BatchMean) : reduction_(Reduction::Sum), batch_mean_(true) {}  // NOLINT
  bool is_batch_mean() const { return batch_mean_; }
  // The reduction applied before kBatchMean's division (kSum for kBatchMean).
  Reduction base() const { return reduction_; }

 private:
  Reduction reduction_;
  bool batch_mean_ = false;
};

}  // namespace ember

namespace ember::nn {

// input: log-probabilities; target: probabilities (log-probabilities with log_target).
struct KLDivLossOptions {
  EMBER_ARG(KLDivReduction, reduction) = kMean;
  EMBER_ARG(bool, log_target) = false;
};

// |d| <= delta: 0.5 d^2, else delta (|d| - 0.5 delta).
struct HuberLossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

// log(1 + exp(-y x)) for targets y = +-1.
struct SoftMarginLossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
};

// max(0, -y (x1 - x2) + margin).
struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// x where y = 1, max(0, margin - x) where y = -1.
struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1.
struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// Negative log-likelihood of a Poisson target; input is the log of the rate
// (log_input) or the rate; full adds Stirling's approximation of log(target!).
struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// Negative log-likelihood of a Gaussian target with mean input and variance
// var (clamped to >= eps); full adds 0.5 log(2 pi). Python PyTorch's: libtorch
// 1.13 has no GaussianNLLLoss.
struct GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// Binary cross-entropy with logits over C labels, averaged over the labels.
// weight: (C) per-label rescaling, undefined for none.
struct MultiLabelSoftMarginLossOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Reduction, reduction) = kMean;
};

// Multi-class hinge loss, p = 1 or 2. weight: (C) per-class rescaling.
struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Reduction, reduction) = kMean;
};

// Multi-class multi-label hinge loss; targets are class indices ended by -1.
struct MultiLabelMarginLossOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
};

// max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance d;
// swap uses min(d(a, n), d(p, n)) for the negative distance.
struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// The triplet loss with a distance of the caller's (default: pairwise_distance).
struct TripletMarginWithDistanceLossOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(Reduction, reduction) = kMean;
};

namespace functional {
using KLDivFuncOptions = KLDivLossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
}  // namespace functional

}  // namespace ember::nn
