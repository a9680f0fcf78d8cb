#include "ember/nn/modules/upsampling.h"

#include "ember/nn/functional/upsampling.h"

namespace ember::nn {

Tensor UpsampleImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::interpolate(x, options); });
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "Upsample(";
  if (options.size()) stream << "size=" << IntArrayRef(*options.size());
  if (options.scale_factor()) stream << "scale_factor=" << ArrayRef<double>(*options.scale_factor());
  stream << ", mode=" << options.mode();
  if (options.align_corners()) stream << ", align_corners=" << std::boolalpha << *options.align_corners();
  stream << ")";
}

}  // namespace ember::nn
