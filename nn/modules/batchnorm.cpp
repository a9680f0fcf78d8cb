#include "ember/nn/modules/batchnorm.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/nn_ops/normalization.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"

namespace ember::nn {

template <int D>
BatchNormImpl<D>::BatchNormImpl(const BatchNormOptions& options_) : options(options_) {
  const int64_t n = options.num_features();
  EMBER_CHECK(n > 0, "BatchNorm", D, "d: num_features must be positive, got ", n);
  if (options.affine()) {
    weight = register_parameter("weight", empty({n}));
    bias = register_parameter("bias", empty({n}));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", empty({n}));
    running_var = register_buffer("running_var", empty({n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kLong));
  }
  reset_parameters();
}

template <int D>
void BatchNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

template <int D>
void BatchNormImpl<D>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <int D>
Tensor BatchNormImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) { return normalize(x, false); });
}

template <int D>
Tensor BatchNormImpl<D>::forward_relu(const Tensor& input) {
  return normalize(input, true);
}

template <int D>
Tensor BatchNormImpl<D>::normalize(const Tensor& x, bool relu) {
  if constexpr (D == 1)
    EMBER_CHECK(x.dim() == 2 || x.dim() == 3,
                "BatchNorm1d: expected a 2-D or 3-D input (N, C) or (N, C, L), got ", x.sizes());
  else
    EMBER_CHECK(x.dim() == 4, "BatchNorm2d: expected a 4-D input (N, C, H, W), got ", x.sizes());
  if (this->is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  // Without running stats, eval normalizes with the batch's own, as PyTorch.
  const bool use_batch_stats = this->is_training() || !options.track_running_stats();
  if (relu)
    return batch_norm_relu(x, weight, bias, running_mean, running_var, use_batch_stats,
                           options.momentum(), options.eps());
  return functional::batch_norm(x, running_mean, running_var,
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(use_batch_stats)
                                    .momentum(options.momentum())
                                    .eps(options.eps()));
}

template <int D>
void BatchNormImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "BatchNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=" << options.momentum()
         << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template class BatchNormImpl<1>;
template class BatchNormImpl<2>;

}  // namespace ember::nn
