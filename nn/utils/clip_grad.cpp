#include "ember/nn/utils/clip_grad.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/abs_pow_sum.h"

namespace ember::nn::utils {

namespace {

void check_gradient(const Tensor& g) {
  EMBER_CHECK(g.is_floating_point(), "clip_grad_norm_: expected floating point gradients, got ",
              g.toString());
}

// The raise when the total norm is NaN or infinite and the caller asked for it.
void check_finite(double total, double norm_type, bool error_if_nonfinite) {
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total), "clip_grad_norm_: the total norm of "
              "order ", norm_type, " of the gradients is ", total,
              ", so they cannot be clipped; to clip anyway pass error_if_nonfinite = false");
}

// CPU gradients: fused float64 passes (abs_pow_sum), the factor on the host.
double clip_on_cpu(const std::vector<Tensor>& grads, double max_norm, double norm_type,
                   bool error_if_nonfinite) {
  const bool is_inf = std::isinf(norm_type);
  double acc = 0;  // sum of |g|^p, or the largest |g|
  for (const Tensor& g : grads) {
    const double part = abs_pow_sum("clip_grad_norm_", g, norm_type).item<double>();
    acc = is_inf ? (std::isnan(part) || part > acc ? part : acc) : acc + part;
  }
  const double total = is_inf ? acc : std::pow(acc, 1.0 / norm_type);
  check_finite(total, norm_type, error_if_nonfinite);
  const double coef = std::min(max_norm / (total + 1e-6), 1.0);
  if (coef == 1.0) return total;  // scaling by 1 changes nothing; skip the pass
  for (const Tensor& g : grads) Tensor(g).mul_(coef);
  return total;
}

// Gradients on one CUDA device: the norm and the factor stay on the device
// (one fused reduction per gradient, abs_pow_sum: |g|^p summed in float64
// as on the CPU), so nothing waits for the device, unless
// error_if_nonfinite: a non-finite total must be read (one sync) before it
// may scale anything.
Tensor clip_on_device(const std::vector<Tensor>& grads, double max_norm, double norm_type,
                      bool error_if_nonfinite) {
  const bool is_inf = std::isinf(norm_type);
  Tensor acc;  // 0-dim float64 on the device: sum of |g|^p, or the largest |g|
  for (const Tensor& g : grads) {
    const Tensor part = abs_pow_sum("clip_grad_norm_", g, norm_type);  // 0 for an empty g
    acc = !acc.defined() ? part : is_inf ? acc.maximum(part) : acc + part;
  }
  const Tensor total = is_inf ? acc : acc.pow(1.0 / norm_type);
  if (error_if_nonfinite) check_finite(total.item<double>(), norm_type, true);
  const Tensor coef = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const Tensor& g : grads) Tensor(g).mul_(coef.to(g.dtype()));
  return total;
}

// The defined gradients of `parameters`, checked: floating point, one device.
std::vector<Tensor> gradients(const std::vector<Tensor>& parameters, double norm_type) {
  EMBER_CHECK(norm_type > 0, "clip_grad_norm_: norm_type must be positive (or inf), got ",
              norm_type);
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (!p.grad().defined()) continue;
    check_gradient(p.grad());
    EMBER_CHECK(grads.empty() || p.grad().device() == grads.front().device(),
                "clip_grad_norm_: all gradients must be on one device, got ",
                grads.front().device(), " and ", p.grad().device());
    grads.push_back(p.grad());
  }
  return grads;
}

bool on_device(const std::vector<Tensor>& grads) {
  return !grads.empty() && grads.front().is_cuda();
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = gradients(parameters, norm_type);
  if (on_device(grads))  // returning the value is the one host sync
    return clip_on_device(grads, max_norm, norm_type, error_if_nonfinite).item<double>();
  return clip_on_cpu(grads, max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

Tensor clip_grad_norm_tensor_(const std::vector<Tensor>& parameters, double max_norm,
                              double norm_type, bool error_if_nonfinite) {
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = gradients(parameters, norm_type);
  if (on_device(grads)) return clip_on_device(grads, max_norm, norm_type, error_if_nonfinite);
  return full({}, clip_on_cpu(grads, max_norm, norm_type, error_if_nonfinite), kDouble);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) Tensor(p.grad()).clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
