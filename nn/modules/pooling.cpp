#include "ember/nn/modules/pooling.h"

#include "ember/nn/functional/pooling.h"

namespace ember::nn {

namespace {

template <typename Options>
void print_max_pool(std::ostream& stream, const char* name, const Options& o) {
  stream << std::boolalpha << name << "(kernel_size=" << o.kernel_size()
         << ", stride=" << o.stride() << ", padding=" << o.padding()
         << ", dilation=" << o.dilation() << ", ceil_mode=" << o.ceil_mode() << ")";
}

template <typename Options>
void print_avg_pool(std::ostream& stream, const char* name, const Options& o) {
  stream << name << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride()
         << ", padding=" << o.padding() << ")";
}

}  // namespace

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::max_pool2d(x, options); });
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  print_max_pool(stream, "MaxPool2d", options);
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::avg_pool2d(x, options); });
}

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  print_avg_pool(stream, "AvgPool2d", options);
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return functional::adaptive_avg_pool2d(x, options); });
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

Tensor MaxPool1dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::max_pool1d(x, options); });
}

void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  print_max_pool(stream, "MaxPool1d", options);
}

Tensor AvgPool1dImpl::forward(const Tensor& input) {
  return call_with_hooks(input,
                         [this](const Tensor& x) { return functional::avg_pool1d(x, options); });
}

void AvgPool1dImpl::pretty_print(std::ostream& stream) const {
  print_avg_pool(stream, "AvgPool1d", options);
}

Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return functional::adaptive_avg_pool1d(x, options); });
}

void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool1d(output_size=" << options.output_size() << ")";
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

template class AdaptiveMaxPoolImpl<1>;
template class AdaptiveMaxPoolImpl<2>;

}  // namespace ember::nn
