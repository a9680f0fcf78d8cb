#include "ember/nn/functional/pooling.h"

#include "ember/core/ops/nn_ops/ops_1d.h"
#include "ember/core/ops/nn_ops/pooling.h"

namespace ember::nn::functional {

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.dilation(), options.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options) {
  return ember::max_pool2d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(),
                                        options.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return ember::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return ember::adaptive_avg_pool2d(input, options.output_size());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  return ember::max_pool1d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.dilation(), options.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options) {
  return ember::max_pool1d_with_indices(input, options.kernel_size(), options.stride(),
                                        options.padding(), options.dilation(),
                                        options.ceil_mode());
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  return ember::avg_pool1d(input, options.kernel_size(), options.stride(), options.padding(),
                           options.ceil_mode(), options.count_include_pad());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  return ember::adaptive_avg_pool1d(input, options.output_size());
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(ember::adaptive_max_pool2d(input, options.output_size()));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::adaptive_max_pool2d(input, options.output_size());
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(ember::adaptive_max_pool1d(input, options.output_size()));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return ember::adaptive_max_pool1d(input, options.output_size());
}

}  // namespace ember::nn::functional
