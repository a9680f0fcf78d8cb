#include "ember/nn/utils/clip_grad.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/kernels/cpu/optim_kernels.h"

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  EMBER_CHECK(norm_type > 0, "clip_grad_norm_: norm_type must be positive (or inf), got ",
              norm_type);
  NoGradGuard no_grad;
  const bool is_inf = std::isinf(norm_type);
  double acc = 0;  // sum of |g|^p, or the largest |g|
  for (const Tensor& p : parameters) {
    const Tensor& g = p.grad();
    if (!g.defined()) continue;
    EMBER_CHECK(g.is_cpu(), "clip_grad_norm_: gradients on ", g.device(),
                " are not supported yet");
    EMBER_CHECK(g.is_floating_point(), "clip_grad_norm_: expected floating point gradients, got ",
                g.toString());
    const double part = cpu::abs_pow_sum(g.contiguous(), norm_type);
    acc = is_inf ? (std::isnan(part) || part > acc ? part : acc) : acc + part;
  }
  const double total = is_inf ? acc : std::pow(acc, 1.0 / norm_type);
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total), "clip_grad_norm_: the total norm of "
              "order ", norm_type, " of the gradients is ", total,
              ", so they cannot be clipped; to clip anyway pass error_if_nonfinite = false");
  const double coef = std::min(max_norm / (total + 1e-6), 1.0);
  if (coef == 1.0) return total;  // scaling by 1 changes nothing; skip the pass
  for (const Tensor& p : parameters)
    if (p.grad().defined()) Tensor(p.grad()).mul_(coef);
  return total;
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
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
