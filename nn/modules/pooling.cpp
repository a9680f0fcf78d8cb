#include "ember/nn/modules/pooling.h"

#include "ember/nn/functional/pooling.h"

namespace ember::nn {

template <size_t D>
Tensor MaxPoolImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) {
    if constexpr (D == 1)
      return functional::max_pool1d(x, options);
    else
      return functional::max_pool2d(x, options);
  });
}

template <size_t D>
void MaxPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "MaxPool" << D << "d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

template <size_t D>
Tensor AvgPoolImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) {
    if constexpr (D == 1)
      return functional::avg_pool1d(x, options);
    else
      return functional::avg_pool2d(x, options);
  });
}

template <size_t D>
void AvgPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "AvgPool" << D << "d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

template <size_t D>
Tensor AdaptiveAvgPoolImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) {
    if constexpr (D == 1)
      return functional::adaptive_avg_pool1d(x, options);
    else
      return functional::adaptive_avg_pool2d(x, options);
  });
}

template <size_t D>
void AdaptiveAvgPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool" << D << "d(output_size=" << options.output_size() << ")";
}

template <size_t D>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  if constexpr (D == 1)
    return functional::adaptive_max_pool1d_with_indices(input, options);
  else
    return functional::adaptive_max_pool2d_with_indices(input, options);
}

template <size_t D>
Tensor AdaptiveMaxPoolImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(
      input, [this](const Tensor& x) { return std::get<0>(forward_with_indices(x)); });
}

template <size_t D>
void AdaptiveMaxPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveMaxPool" << D << "d(output_size=" << options.output_size() << ")";
}

template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;
template class AdaptiveAvgPoolImpl<1>;
template class AdaptiveAvgPoolImpl<2>;
template class AdaptiveMaxPoolImpl<1>;
template class AdaptiveMaxPoolImpl<2>;

}  // namespace ember::nn
