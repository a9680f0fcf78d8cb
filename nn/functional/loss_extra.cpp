// The regression and likelihood losses of loss_extra.h: kl_div, huber_loss,
// poisson_nll_loss, gaussian_nll_loss, each composed of ember ops. The margin
// losses are in loss_margin.cpp.
#include "ember/nn/functional/loss_extra.h"

#include <cmath>
#include <iostream>
#include <mutex>
#include <numbers>

#include "ember/core/autocast.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/pointwise_extras.h"
#include "ember/core/ops/elementwise/pointwise_binary.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/nn/functional/loss_checks.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using namespace detail;

namespace {

// The checks of the two-tensor value losses: floating input and target on
// one device, broadcasting against each other.
void check_value_inputs(const char* op, const Tensor& input, const Tensor& target) {
  check_loss_inputs(op, input, target);
  check_floating_target(op, target);
  check_broadcastable(op, "input", input, "target", target);
}

}  // namespace

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return kl_div(autocast::cast(input, *to), autocast::cast(target, *to), options);
  check_value_inputs("kl_div", input, target);
  const Tensor loss = options.log_target() ? exp(target) * (target - input)
                                           : xlogy(target, target) - target * input;
  const KLDivReduction reduction = options.reduction();
  if (reduction.is_batch_mean()) {
    const Tensor total = loss.sum();
    return input.dim() == 0 ? total : total / static_cast<double>(input.size(0));
  }
  if (reduction.base() == Reduction::Mean) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      std::cerr << "ember warning: kl_div with kMean divides by the number of elements, not the "
                   "batch size; kBatchMean gives the KL divergence's definition (as libtorch)\n";
    });
  }
  return apply_reduction(loss, reduction.base());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return huber_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "huber_loss";
  check_value_inputs(op, input, target);
  const double delta = options.delta();
  EMBER_CHECK(delta > 0, op, ": delta must be positive, got ", delta);
  const Tensor d = input - target;
  const Tensor ad = abs(d);
  return apply_reduction(where(ad < delta, 0.5 * square(d), delta * (ad - 0.5 * delta)),
                         options.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return poisson_nll_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  check_value_inputs("poisson_nll_loss", input, target);
  Tensor loss = options.log_input() ? exp(input) - target * input
                                    : input - target * log(input + options.eps());
  if (options.full()) {
    // Stirling's term only where target > 1; elsewhere it is computed at 2 so
    // that neither branch of where is NaN (which would reach the gradient).
    const Tensor big = target > 1;
    const Tensor t = where(big, target, 2.0);
    const Tensor stirling = t * log(t) - t + 0.5 * log(2 * std::numbers::pi * t);
    loss = loss + where(big, stirling, 0.0);
  }
  return apply_reduction(loss, options.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options) {
  const char* op = "gaussian_nll_loss";
  check_value_inputs(op, input, target);
  EMBER_CHECK(var.defined() && var.device() == input.device() && var.is_floating_point(), op,
              ": expected a floating point var on the input's device, got ", var.toString());
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    // Homoscedastic: one variance per line of the last dim, (..) or (.., 1).
    const IntArrayRef lead =
        input.dim() == 0 ? IntArrayRef{} : input.sizes().slice(0, input.dim() - 1);
    if (var.sizes() == lead) {
      v = var.unsqueeze(-1);
    } else {
      EMBER_CHECK(var.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                      var.sizes().slice(0, var.dim() - 1) == lead,
                  op, ": var of shape ", var.sizes(), " does not fit input of shape ",
                  input.sizes(), " (expected ", input.sizes(), ", ", lead,
                  " or that with a last dim of 1)");
    }
  }
  // One read of the device (a synchronization on CUDA), as PyTorch.
  EMBER_CHECK(var.numel() == 0 || !(var < 0).any().item<bool>(), op, ": var has negative entries");
  // max(var, eps) in value; the gradient reaches var as if unclamped.
  v = clamp_min(v.detach(), options.eps()) + (v - v.detach());
  Tensor loss = 0.5 * (log(v) + square(input - target) / v);
  if (options.full()) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
