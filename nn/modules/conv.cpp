#include "ember/nn/modules/conv.h"

#include <cmath>
#include <vector>

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/nn_ops/pad.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/init.h"

namespace ember::nn {

namespace {

void check_channels(const char* layer, int64_t in, int64_t out, int64_t groups) {
  EMBER_CHECK(groups > 0, layer, ": groups must be positive, got ", groups);
  EMBER_CHECK(in > 0 && out > 0, layer, ": in_channels and out_channels must be positive, got ",
              in, " and ", out);
  EMBER_CHECK(in % groups == 0, layer, ": in_channels (", in, ") must be divisible by groups (",
              groups, ")");
  EMBER_CHECK(out % groups == 0, layer, ": out_channels (", out,
              ") must be divisible by groups (", groups, ")");
}

// PyTorch's default for conv layers (see LinearImpl::reset_parameters).
void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::calculate_fan_in_and_fan_out(weight));
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

template <size_t D>
void print_padding(std::ostream& stream, const ExpandingArray<D>& padding) {
  if (!(padding == ExpandingArray<D>(0))) stream << ", padding=" << padding;
}
template <size_t D>
void print_padding(std::ostream& stream, const conv_padding_t<D>& padding) {
  if (const auto* p = std::get_if<ExpandingArray<D>>(&padding))
    print_padding(stream, *p);
  else
    stream << ", padding="
           << (std::holds_alternative<enumtype::kSame>(padding) ? "kSame" : "kValid");
}

// libtorch's format: stride always, the others when not their default.
template <size_t D, typename Options>
void print_conv_common(std::ostream& stream, const Options& o) {
  stream << "(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  print_padding<D>(stream, o.padding());
  if (!(o.dilation() == ExpandingArray<D>(1))) stream << ", dilation=" << o.dilation();
}

// The tail of Conv1d's and Conv2d's printing: groups, bias, padding_mode.
template <typename Options>
void print_conv_tail(std::ostream& stream, const Options& o) {
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  if (o.padding_mode() != kZeros) stream << ", padding_mode=" << o.padding_mode();
  stream << ")";
}

// Conv1d's and Conv2d's forward: the functional conv with the layer's padding
// or, for a padding_mode other than kZeros, a pad in that mode and no padding.
template <size_t D, typename FuncOptions, typename Options, typename Conv>
Tensor conv_layer_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                          const Options& o, const char* layer, Conv conv) {
  FuncOptions f = FuncOptions()
                      .bias(bias)
                      .stride(o.stride())
                      .padding(o.padding())
                      .dilation(o.dilation())
                      .groups(o.groups());
  if (o.padding_mode() == kZeros) return conv(x, weight, f);
  const auto sides = functional::detail::conv_padding_sides<D>(o.padding(), o.kernel_size(),
                                                               o.stride(), o.dilation(), layer);
  std::vector<int64_t> pads;  // pad's order: the last dim first
  for (size_t d = D; d-- > 0;) pads.insert(pads.end(), {sides[d].first, sides[d].second});
  return conv(pad(x, pads, o.padding_mode()), weight, f.padding(0));
}

}  // namespace

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options_) : options(options_) {
  check_channels("Conv1d", options.in_channels(), options.out_channels(), options.groups());
  weight = register_parameter("weight", empty({options.out_channels(),
                                               options.in_channels() / options.groups(),
                                               options.kernel_size()[0]}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_channels()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void Conv1dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor Conv1dImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return conv_layer_forward<1, functional::Conv1dFuncOptions>(x, weight, bias, options,
                                                                "Conv1d", functional::conv1d);
  });
}

void Conv1dImpl::pretty_print(std::ostream& stream) const {
  stream << "Conv1d";
  print_conv_common<1>(stream, options);
  print_conv_tail(stream, options);
}

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : options(options_) {
  check_channels("Conv2d", options.in_channels(), options.out_channels(), options.groups());
  const ExpandingArray<2>& k = options.kernel_size();
  weight = register_parameter(
      "weight",
      empty({options.out_channels(), options.in_channels() / options.groups(), k[0], k[1]}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_channels()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor Conv2dImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) {
    return conv_layer_forward<2, functional::Conv2dFuncOptions>(x, weight, bias, options,
                                                                "Conv2d", functional::conv2d);
  });
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << "Conv2d";
  print_conv_common<2>(stream, options);
  print_conv_tail(stream, options);
}

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(const Options& options_) : options(options_) {
  check_channels(D == 1 ? "ConvTranspose1d" : "ConvTranspose2d", options.in_channels(),
                 options.out_channels(), options.groups());
  std::vector<int64_t> shape{options.in_channels(), options.out_channels() / options.groups()};
  for (size_t d = 0; d < D; ++d) shape.push_back(options.kernel_size()[d]);
  weight = this->register_parameter("weight", ember::empty(shape));
  bias = this->register_parameter(
      "bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(), options.bias());
  reset_parameters();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input) {
  return this->call_with_hooks(input, [this](const Tensor& x) {
    using FuncOptions = std::conditional_t<D == 1, functional::ConvTranspose1dFuncOptions,
                                           functional::ConvTranspose2dFuncOptions>;
    const FuncOptions f = FuncOptions()
                              .bias(bias)
                              .stride(options.stride())
                              .padding(options.padding())
                              .output_padding(options.output_padding())
                              .groups(options.groups())
                              .dilation(options.dilation());
    if constexpr (D == 1)
      return functional::conv_transpose1d(x, weight, f);
    else
      return functional::conv_transpose2d(x, weight, f);
  });
}

template <size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& stream) const {
  stream << (D == 1 ? "ConvTranspose1d" : "ConvTranspose2d");
  print_conv_common<D>(stream, options);
  if (!(options.output_padding() == ExpandingArray<D>(0)))
    stream << ", output_padding=" << options.output_padding();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;

}  // namespace ember::nn
