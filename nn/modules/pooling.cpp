#include "ember/nn/modules/pooling.h"

#include "ember/nn/functional/pooling.h"

namespace ember::nn {

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::max_pool2d(x, options); });
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::avg_pool2d(x, options); });
}

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AvgPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return functional::adaptive_avg_pool2d(x, options); });
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

}  // namespace ember::nn
