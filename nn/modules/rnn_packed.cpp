// RNN, LSTM and GRU over a PackedSequence. The batch is sorted by length, so
// at step t the sequences still running are the first batch_sizes[t] rows:
// each step narrows the state to them. Going forward the batch shrinks and
// the rows that leave hold their sequence's final state; going backward it
// grows, the new rows starting from their initial state.
#include <algorithm>

#include "ember/core/ops/nn_ops/dropout.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/views.h"
#include "ember/nn/modules/rnn.h"

namespace ember::nn {

using utils::rnn::PackedSequence;

namespace detail {

namespace {

// batch_sizes, and the first row of each step in the packed data.
struct PackedSteps {
  std::vector<int64_t> sizes, offsets;
};

PackedSteps packed_steps(const PackedSequence& input) {
  const Tensor bs = input.batch_sizes().contiguous();
  const int64_t* p = bs.data_ptr<int64_t>();
  PackedSteps steps{std::vector<int64_t>(p, p + bs.numel()), {}};
  int64_t offset = 0;
  for (int64_t size : steps.sizes) {
    steps.offsets.push_back(offset);
    offset += size;
  }
  return steps;
}

Tensor rows(const Tensor& t, int64_t start, int64_t length) {
  return t.defined() ? t.narrow(0, start, length) : t;
}

Tensor append_rows(const Tensor& t, const Tensor& more) {
  return t.defined() ? cat({t, more}, 0) : t;
}

struct PackedDirection {
  Tensor output, h, c;
};

// One direction of one layer over packed rows x (rows, in); h0, c0: (B, *)
// in the packed order.
PackedDirection run_packed_direction(const Tensor& x, const PackedSteps& steps, bool reverse,
                                     const RNNLayerWeights& w, const Tensor& h0, const Tensor& c0,
                                     const RNNStep& step) {
  const Tensor gx = linear(x, w.w_ih, w.b_ih);
  const size_t count = steps.sizes.size();
  std::vector<Tensor> outputs(count), final_h, final_c;  // finals: highest rows first
  Tensor h, c;
  int64_t active = 0;
  for (size_t s = 0; s < count; ++s) {
    const size_t t = reverse ? count - 1 - s : s;
    const int64_t b = steps.sizes[t];
    if (s == 0) {
      h = rows(h0, 0, b);
      c = rows(c0, 0, b);
    } else if (b < active) {
      final_h.push_back(rows(h, b, active - b));
      final_c.push_back(rows(c, b, active - b));
      h = rows(h, 0, b);
      c = rows(c, 0, b);
    } else if (b > active) {
      h = append_rows(h, rows(h0, active, b - active));
      c = append_rows(c, rows(c0, active, b - active));
    }
    active = b;
    std::tie(h, c) = step(gx.narrow(0, steps.offsets[t], b), linear(h, w.w_hh, w.b_hh), h, c);
    if (w.w_hr.defined()) h = linear(h, w.w_hr);
    outputs[t] = h;
  }
  final_h.push_back(h);
  final_c.push_back(c);
  std::reverse(final_h.begin(), final_h.end());
  std::reverse(final_c.begin(), final_c.end());
  return {cat(outputs, 0), cat(final_h, 0), c.defined() ? cat(final_c, 0) : Tensor()};
}

}  // namespace

int64_t RNNImplBase::packed_batch(const PackedSequence& input) const {
  const Tensor& data = input.data();
  EMBER_CHECK(data.dim() == 2 && data.size(1) == options_base.input_size(), name(),
              ": expected packed data of shape (sum of lengths, input_size = ",
              options_base.input_size(), "), got ", data.sizes());
  const Tensor& w = layer_weights_[0].w_ih;
  EMBER_CHECK(data.scalar_type() == w.scalar_type() && data.device() == w.device(), name(),
              ": packed data is ", data.scalar_type(), " on ", data.device(),
              " but the parameters are ", w.scalar_type(), " on ", w.device());
  return input.batch_sizes()[0].item<int64_t>();
}

std::vector<Tensor> RNNImplBase::packed_initial_states(const PackedSequence& input, int64_t batch,
                                                       const Tensor& state, const char* label,
                                                       int64_t columns) const {
  const int64_t count = options_base.num_layers() * num_directions();
  const Tensor& data = input.data();
  if (!state.defined())
    return std::vector<Tensor>(static_cast<size_t>(count), zeros({batch, columns}, data.options()));
  EMBER_CHECK(state.dim() == 3 && state.size(0) == count && state.size(1) == batch &&
                  state.size(2) == columns,
              name(), ": expected ", label, " of shape [", count, ", ", batch, ", ", columns,
              "] for a packed batch of ", batch, " sequences, got ", state.sizes());
  EMBER_CHECK(state.scalar_type() == data.scalar_type() && state.device() == data.device(),
              name(), ": ", label, " is ", state.scalar_type(), " on ", state.device(),
              " but the packed data is ", data.scalar_type(), " on ", data.device());
  const Tensor& order = input.sorted_indices();
  return (order.defined() ? state.index_select(1, order) : state).unbind(0);
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run_packed(const PackedSequence& input,
                                                           const std::vector<Tensor>& h0,
                                                           const std::vector<Tensor>& c0,
                                                           const RNNStep& step) {
  const PackedSteps steps = packed_steps(input);
  const int64_t directions = num_directions(), layers = options_base.num_layers();
  Tensor layer_input = input.data();
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const size_t k = static_cast<size_t>(layer * directions + direction);
      PackedDirection run = run_packed_direction(layer_input, steps, direction == 1,
                                                 layer_weights_[k], h0[k],
                                                 c0.empty() ? Tensor() : c0[k], step);
      outputs.push_back(run.output);
      h_n.push_back(run.h);
      if (run.c.defined()) c_n.push_back(run.c);
    }
    layer_input = directions == 1 ? outputs[0] : cat(outputs, 1);
    if (options_base.dropout() > 0 && is_training() && layer + 1 < layers)
      layer_input = dropout(layer_input, options_base.dropout(), true);
  }
  const Tensor& order = input.unsorted_indices();
  auto original_order = [&](const std::vector<Tensor>& states) {
    if (states.empty()) return Tensor();
    const Tensor s = stack(states, 0);
    return order.defined() ? s.index_select(1, order) : s;
  };
  return {layer_input, original_order(h_n), original_order(c_n)};
}

}  // namespace detail

namespace {

PackedSequence repacked(const PackedSequence& input, const Tensor& data) {
  return PackedSequence(data, input.batch_sizes(), input.sorted_indices(),
                        input.unsorted_indices());
}

}  // namespace

std::tuple<PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const PackedSequence& packed_input, Tensor hx) {
  const int64_t batch = packed_batch(packed_input);
  const auto h0 = packed_initial_states(packed_input, batch, hx, "hx", options.hidden_size());
  auto [output, h_n, c_n] =
      run_packed(packed_input, h0, {}, detail::rnn_layer_step(options.nonlinearity()));
  return {repacked(packed_input, output), h_n};
}

std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const int64_t batch = packed_batch(packed_input);
  Tensor hx, cx;
  if (hx_opt) std::tie(hx, cx) = *hx_opt;
  const int64_t h_size = options.proj_size() > 0 ? options.proj_size() : options.hidden_size();
  const auto h0 = packed_initial_states(packed_input, batch, hx, "hx", h_size);
  const auto c0 = packed_initial_states(packed_input, batch, cx, "cx", options.hidden_size());
  auto [output, h_n, c_n] = run_packed(packed_input, h0, c0, detail::lstm_layer_step());
  return {repacked(packed_input, output), {h_n, c_n}};
}

std::tuple<PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const PackedSequence& packed_input, Tensor hx) {
  const int64_t batch = packed_batch(packed_input);
  const auto h0 = packed_initial_states(packed_input, batch, hx, "hx", options.hidden_size());
  auto [output, h_n, c_n] = run_packed(packed_input, h0, {}, detail::gru_layer_step());
  return {repacked(packed_input, output), h_n};
}

}  // namespace ember::nn
