#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <string>

#include "ember/core/ops/nn_ops/dropout.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/views.h"
#include "ember/nn/modules/rnn_gates.h"

namespace ember::nn {

namespace detail {

namespace {

const char* mode_name(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM: return "LSTM";
    case RNNMode::GRU: return "GRU";
    default: return "RNN";
  }
}

int64_t gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM: return 4;
    case RNNMode::GRU: return 3;
    default: return 1;
  }
}

struct Sequence {
  Tensor output, h, c;
};

// One direction of one layer over the whole sequence; x: (T, B, in) with
// time along time_dim. Returns the outputs stacked along time_dim and the
// final state.
Sequence run_direction(const Tensor& x, int64_t time_dim, bool reverse, const RNNLayerWeights& w,
                       Tensor h, Tensor c, const RNNStep& step) {
  // The input part of every step in one matmul; only h W_hh^T stays in the loop.
  const std::vector<Tensor> gx = linear(x, w.w_ih, w.b_ih).unbind(time_dim);
  const size_t steps = gx.size();
  std::vector<Tensor> outputs(steps);
  for (size_t s = 0; s < steps; ++s) {
    const size_t t = reverse ? steps - 1 - s : s;
    std::tie(h, c) = step(gx[t], linear(h, w.w_hh, w.b_hh), h, c);
    if (w.w_hr.defined()) h = linear(h, w.w_hr);
    outputs[t] = h;
  }
  return {stack(outputs, time_dim), h, c};
}

}  // namespace

RNNStep rnn_layer_step(Nonlinearity nonlinearity) {
  return [nonlinearity](const Tensor& gx, const Tensor& gh, const Tensor&, const Tensor&) {
    return std::tuple<Tensor, Tensor>{rnn_step(gx, gh, nonlinearity), Tensor()};
  };
}

RNNStep lstm_layer_step() {
  return [](const Tensor& gx, const Tensor& gh, const Tensor&, const Tensor& c) {
    return lstm_step(gx, gh, c);
  };
}

RNNStep gru_layer_step() {
  return [](const Tensor& gx, const Tensor& gh, const Tensor& h, const Tensor&) {
    return std::tuple<Tensor, Tensor>{gru_step(gx, gh, h), Tensor()};
  };
}

RNNImplBase::RNNImplBase(const RNNOptionsBase& options) : options_base(options) {
  const char* name = mode_name(options.mode());
  const int64_t hidden = options.hidden_size(), proj = options.proj_size();
  EMBER_CHECK(options.input_size() >= 0 && hidden > 0 && options.num_layers() > 0, name,
              ": input_size must be non-negative, hidden_size and num_layers positive; got ",
              options.input_size(), ", ", hidden, " and ", options.num_layers());
  EMBER_CHECK(options.dropout() >= 0 && options.dropout() <= 1, name,
              ": dropout should be a number in range [0, 1] representing the probability of an "
              "element being zeroed, got ", options.dropout());
  EMBER_CHECK(proj >= 0 && proj < hidden, name,
              ": proj_size has to be non-negative and smaller than hidden_size (", hidden,
              "), got ", proj);
  EMBER_CHECK(proj == 0 || options.mode() == RNNMode::LSTM, name,
              ": proj_size is only supported by LSTM");
  const int64_t gates = gate_count(options.mode()) * hidden;
  const int64_t out_size = proj > 0 ? proj : hidden, directions = num_directions();
  for (int64_t layer = 0; layer < options.num_layers(); ++layer) {
    for (int64_t direction = 0; direction < directions; ++direction) {
      const std::string suffix =
          "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      const int64_t in = layer == 0 ? options.input_size() : out_size * directions;
      RNNLayerWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, empty({gates, in}));
      w.w_hh = register_parameter("weight_hh" + suffix, empty({gates, out_size}));
      if (options.bias()) {
        w.b_ih = register_parameter("bias_ih" + suffix, empty({gates}));
        w.b_hh = register_parameter("bias_hh" + suffix, empty({gates}));
      }
      if (proj > 0) w.w_hr = register_parameter("weight_hr" + suffix, empty({proj, hidden}));
      layer_weights_.push_back(w);
    }
  }
  reset_parameters();
}

// PyTorch's: every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
void RNNImplBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (const Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

std::vector<Tensor> RNNImplBase::all_weights() const { return parameters(); }

void RNNImplBase::pretty_print(std::ostream& stream) const {
  const RNNOptionsBase& o = options_base;
  stream << std::boolalpha << name() << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers()
         << ", bias=" << o.bias() << ", batch_first=" << o.batch_first()
         << ", dropout=" << o.dropout() << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

Tensor RNNImplBase::batched_input(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, name(),
              ": expected a 2-D (unbatched) or 3-D (batched) input, got shape ", input.sizes());
  EMBER_CHECK(input.size(-1) == options_base.input_size(), name(),
              ": input.size(-1) must be equal to input_size; expected ", options_base.input_size(),
              ", got ", input.size(-1), " (input shape ", input.sizes(), ")");
  const Tensor& w = layer_weights_[0].w_ih;
  EMBER_CHECK(input.scalar_type() == w.scalar_type() && input.device() == w.device(), name(),
              ": input is ", input.scalar_type(), " on ", input.device(), " but the parameters are ",
              w.scalar_type(), " on ", w.device());
  const Tensor x = input.dim() == 3 ? input : input.unsqueeze(options_base.batch_first() ? 0 : 1);
  EMBER_CHECK(x.size(options_base.batch_first() ? 1 : 0) > 0, name(),
              ": expected sequence length to be larger than 0, got input shape ", input.sizes());
  return x;
}

std::vector<Tensor> RNNImplBase::initial_states(const Tensor& input, const Tensor& state,
                                                const char* label, int64_t columns) const {
  const bool batched = input.dim() == 3;
  const int64_t batch = batched ? input.size(options_base.batch_first() ? 0 : 1) : 1;
  const int64_t count = options_base.num_layers() * num_directions();
  if (!state.defined())
    return std::vector<Tensor>(static_cast<size_t>(count), zeros({batch, columns}, input.options()));
  EMBER_CHECK(state.dim() == input.dim(), name(), ": for ",
              batched ? "batched 3-D" : "unbatched 2-D", " input, ", label, " should also be ",
              input.dim(), "-D, got shape ", state.sizes());
  const Tensor s = batched ? state : state.unsqueeze(1);
  const std::vector<int64_t> want =
      batched ? std::vector<int64_t>{count, batch, columns} : std::vector<int64_t>{count, columns};
  EMBER_CHECK(s.size(0) == count && s.size(1) == batch && s.size(2) == columns, name(),
              ": expected ", label, " of shape ", IntArrayRef(want), ", got ", state.sizes(),
              " (input shape ", input.sizes(), ")");
  EMBER_CHECK(state.scalar_type() == input.scalar_type() && state.device() == input.device(),
              name(), ": ", label, " is ", state.scalar_type(), " on ", state.device(),
              " but the input is ", input.scalar_type(), " on ", input.device());
  return s.unbind(0);
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& x, const std::vector<Tensor>& h0,
                                                    const std::vector<Tensor>& c0,
                                                    const RNNStep& step) {
  const int64_t time_dim = options_base.batch_first() ? 1 : 0, directions = num_directions();
  const int64_t layers = options_base.num_layers();
  Tensor layer_input = x;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const size_t k = static_cast<size_t>(layer * directions + direction);
      Sequence seq = run_direction(layer_input, time_dim, direction == 1, layer_weights_[k],
                                   h0[k], c0.empty() ? Tensor() : c0[k], step);
      outputs.push_back(seq.output);
      h_n.push_back(seq.h);
      if (seq.c.defined()) c_n.push_back(seq.c);
    }
    layer_input = directions == 1 ? outputs[0] : cat(outputs, 2);
    // As PyTorch: between layers, not after the last.
    if (options_base.dropout() > 0 && is_training() && layer + 1 < layers)
      layer_input = dropout(layer_input, options_base.dropout(), true);
  }
  return {layer_input, stack(h_n, 0), c_n.empty() ? Tensor() : stack(c_n, 0)};
}

Tensor RNNImplBase::unbatch(const Tensor& input, const Tensor& result, bool is_output) const {
  if (input.dim() == 3) return result;
  return result.squeeze(is_output && options_base.batch_first() ? 0 : 1);
}

}  // namespace detail

namespace {

template <typename Options>
detail::RNNOptionsBase base_options(const Options& o, detail::RNNMode mode) {
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_)
    : RNNImplBase(base_options(options_, options_.nonlinearity() == kReLU
                                             ? detail::RNNMode::RNN_RELU
                                             : detail::RNNMode::RNN_TANH)),
      options(options_) {
  EMBER_CHECK(options.nonlinearity() == kTanh || options.nonlinearity() == kReLU,
              "RNN: nonlinearity must be kTanh or kReLU");
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input);
  const auto h0 = initial_states(input, hx, "hx", options.hidden_size());
  auto [output, h_n, c_n] = run(x, h0, {}, detail::rnn_layer_step(options.nonlinearity()));
  return {unbatch(input, output, true), unbatch(input, h_n, false)};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(base_options(options_, detail::RNNMode::LSTM).proj_size(options_.proj_size())),
      options(options_) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const Tensor x = batched_input(input);
  Tensor hx, cx;
  if (hx_opt) std::tie(hx, cx) = *hx_opt;
  const int64_t h_size = options.proj_size() > 0 ? options.proj_size() : options.hidden_size();
  const auto h0 = initial_states(input, hx, "hx", h_size);
  const auto c0 = initial_states(input, cx, "cx", options.hidden_size());
  auto [output, h_n, c_n] = run(x, h0, c0, detail::lstm_layer_step());
  return {unbatch(input, output, true),
          {unbatch(input, h_n, false), unbatch(input, c_n, false)}};
}

GRUImpl::GRUImpl(const GRUOptions& options_)
    : RNNImplBase(base_options(options_, detail::RNNMode::GRU)), options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input);
  const auto h0 = initial_states(input, hx, "hx", options.hidden_size());
  auto [output, h_n, c_n] = run(x, h0, {}, detail::gru_layer_step());
  return {unbatch(input, output, true), unbatch(input, h_n, false)};
}

}  // namespace ember::nn
