#include "ember/nn/modules/fold.h"

#include "ember/nn/functional/fold.h"

namespace ember::nn {

Tensor UnfoldImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return functional::unfold(x, options); });
}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

Tensor FoldImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return functional::fold(x, options); });
}

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Fold(output_size=" << options.output_size()
         << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation() << ", padding=" << options.padding()
         << ", stride=" << options.stride() << ")";
}

}  // namespace ember::nn
