#include "ember/nn/modules/rnn_cell.h"

#include <cmath>

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/nn/modules/rnn_gates.h"

namespace ember::nn {

namespace detail {

RNNCellImplBase::RNNCellImplBase(const char* name, int64_t input_size, int64_t hidden_size,
                                 bool bias, int64_t gates, std::string nonlinearity)
    : input_size_(input_size),
      hidden_size_(hidden_size),
      bias_(bias),
      nonlinearity_(std::move(nonlinearity)) {
  EMBER_CHECK(input_size >= 0 && hidden_size > 0, name,
              ": input_size must be non-negative and hidden_size positive, got ", input_size,
              " and ", hidden_size);
  weight_ih = register_parameter("weight_ih", empty({gates * hidden_size, input_size}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden_size}) : Tensor(), bias);
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden_size}) : Tensor(), bias);
  reset_parameters();
}

// PyTorch's: every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
void RNNCellImplBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (const Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

void RNNCellImplBase::pretty_print(std::ostream& stream) const {
  stream << name() << "(" << input_size_ << ", " << hidden_size_;
  if (!bias_) stream << ", bias=false";
  if (!nonlinearity_.empty()) stream << ", nonlinearity=" << nonlinearity_;
  stream << ")";
}

Tensor RNNCellImplBase::batched_input(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, name(),
              ": expected input to be 1-D or 2-D, got shape ", input.sizes());
  EMBER_CHECK(input.size(-1) == input_size_, name(), ": input has inconsistent input_size: got ",
              input.size(-1), ", expected ", input_size_, " (input shape ", input.sizes(), ")");
  EMBER_CHECK(input.scalar_type() == weight_ih.scalar_type() && input.device() == weight_ih.device(),
              name(), ": input is ", input.scalar_type(), " on ", input.device(),
              " but the parameters are ", weight_ih.scalar_type(), " on ", weight_ih.device());
  return input.dim() == 2 ? input : input.unsqueeze(0);
}

Tensor RNNCellImplBase::batched_state(const Tensor& input, const Tensor& state,
                                      const char* label) const {
  const int64_t batch = input.dim() == 2 ? input.size(0) : 1;
  if (!state.defined()) return zeros({batch, hidden_size_}, input.options());
  EMBER_CHECK(state.dim() == input.dim(), name(), ": ", label, " must have ", input.dim(),
              " dims like the input (shape ", input.sizes(), "), got shape ", state.sizes());
  const Tensor s = input.dim() == 2 ? state : state.unsqueeze(0);
  EMBER_CHECK(s.size(0) == batch && s.size(1) == hidden_size_, name(), ": ", label, " of shape ",
              state.sizes(), " does not match input batch ", batch, " and hidden_size ",
              hidden_size_, " (input shape ", input.sizes(), ")");
  EMBER_CHECK(state.scalar_type() == input.scalar_type() && state.device() == input.device(),
              name(), ": ", label, " is ", state.scalar_type(), " on ", state.device(),
              " but the input is ", input.scalar_type(), " on ", input.device());
  return s;
}

}  // namespace detail

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase("RNNCell", options_.input_size(), options_.hidden_size(), options_.bias(), 1,
                      options_.nonlinearity() == kReLU ? "kReLU" : ""),
      options(options_) {
  EMBER_CHECK(options.nonlinearity() == kTanh || options.nonlinearity() == kReLU,
              "RNNCell: nonlinearity must be kTanh or kReLU");
}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input), h = batched_state(input, hx, "hx");
  const Tensor out = detail::rnn_step(linear(x, weight_ih, bias_ih), linear(h, weight_hh, bias_hh),
                                      options.nonlinearity());
  return input.dim() == 2 ? out : out.squeeze(0);
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase("LSTMCell", options_.input_size(), options_.hidden_size(), options_.bias(), 4),
      options(options_) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const Tensor x = batched_input(input);
  Tensor h, c;
  if (hx_opt) std::tie(h, c) = *hx_opt;
  h = batched_state(input, h, "hx");
  c = batched_state(input, c, "cx");
  auto [h_next, c_next] = detail::lstm_step(linear(x, weight_ih, bias_ih),
                                            linear(h, weight_hh, bias_hh), c);
  if (input.dim() == 1) return {h_next.squeeze(0), c_next.squeeze(0)};
  return {h_next, c_next};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase("GRUCell", options_.input_size(), options_.hidden_size(), options_.bias(), 3),
      options(options_) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input), h = batched_state(input, hx, "hx");
  const Tensor out = detail::gru_step(linear(x, weight_ih, bias_ih), linear(h, weight_hh, bias_hh), h);
  return input.dim() == 2 ? out : out.squeeze(0);
}

}  // namespace ember::nn
