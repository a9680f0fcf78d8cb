#include "ember/nn/modules/normalization.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"

namespace ember::nn {

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return functional::layer_norm(x, functional::LayerNormFuncOptions(options.normalized_shape())
                                         .weight(weight)
                                         .bias(bias)
                                         .eps(options.eps()));
  });
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "LayerNorm(" << IntArrayRef(options.normalized_shape())
         << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine()
         << ")";
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              "GroupNorm: num_channels (", options.num_channels(),
              ") must be divisible by num_groups (", options.num_groups(), ")");
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ember::empty({options.num_channels()}));
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return functional::group_norm(
        x, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(
               options.eps()));
  });
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps()
         << ", affine=" << options.affine() << ")";
}

template <size_t D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options_) : options(options_) {
  EMBER_CHECK(!options.track_running_stats(), "InstanceNorm", D, "d: track_running_stats is not "
              "supported (ember keeps no running statistics for instance norm)");
  if (options.affine()) {
    weight = this->register_parameter("weight", ember::empty({options.num_features()}));
    bias = this->register_parameter("bias", ember::empty({options.num_features()}));
  }
  reset_parameters();
}

template <size_t D>
void InstanceNormImpl<D>::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

template <size_t D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) {
    EMBER_CHECK(x.dim() == D + 1 || x.dim() == D + 2, "InstanceNorm", D, "d: expected a ", D + 1,
                "-d or ", D + 2, "-d input, got shape ", x.sizes());
    const bool batched = x.dim() == D + 2;
    const Tensor y = functional::instance_norm(
        batched ? x : x.unsqueeze(0),
        functional::InstanceNormFuncOptions().weight(weight).bias(bias).eps(options.eps()));
    return batched ? y : y.squeeze(0);
  });
}

template <size_t D>
void InstanceNormImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "InstanceNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=" << options.momentum()
         << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;

}  // namespace ember::nn
