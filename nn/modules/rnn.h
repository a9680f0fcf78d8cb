#pragma once
// RNN, LSTM and GRU, as torch::nn's: multi-layer, optionally bidirectional
// recurrent layers over a whole sequence.
//   input: (T, B, input_size), (B, T, input_size) with batch_first, or
//          unbatched (T, input_size)
//   hx:    (L*D, B, H) or unbatched (L*D, H), zeros when not given
//          (L = num_layers, D = 2 if bidirectional else 1; LSTM's h has
//          proj_size columns instead of H when proj_size > 0)
//   output: the last layer's h at every step, (T, B, D*H) (batch_first:
//          (B, T, D*H)); the directions side by side, forward first.
// Parameters as PyTorch's, per layer k: weight_ih_l{k} (G*H, in_k),
// weight_hh_l{k} (G*H, H), bias_ih_l{k}, bias_hh_l{k} (G*H), LSTM's
// weight_hr_l{k} (proj_size, H), and the same with suffix _reverse for the
// backward direction; all U(-1/sqrt(H), 1/sqrt(H)). Gate equations as the
// cells' (rnn_gates.h).
// forward_with_packed_input takes a PackedSequence (nn/utils/rnn.h) of
// (sum of lengths, input_size) rows instead, runs each sequence over its own
// length only (rnn_packed.cpp), and returns the output packed the same way,
// with h_n (and c_n) holding each sequence's last state, in the original
// batch order; hx too is in the original order. batch_first does not apply.
#include <functional>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/rnn.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {

namespace detail {

// The parameters of one direction of one layer (w_hr: LSTM's projection).
struct RNNLayerWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// One time step: (gx_t, gh, h, c) -> (h', c'), c undefined but for LSTM
// (gx_t, gh as in rnn_gates.h).
using RNNStep = std::function<std::tuple<Tensor, Tensor>(const Tensor& gx, const Tensor& gh,
                                                         const Tensor& h, const Tensor& c)>;
// The steps of RNN, LSTM and GRU.
RNNStep rnn_layer_step(Nonlinearity nonlinearity);
RNNStep lstm_layer_step();
RNNStep gru_layer_step();

// What RNN, LSTM and GRU share: the options, the parameters and the checks.
class RNNImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // The parameters in registration order (libtorch's all_weights).
  std::vector<Tensor> all_weights() const;
  // A no-op: ember keeps no flat weight buffer (cuDNN's, in libtorch).
  void flatten_parameters() {}

  RNNOptionsBase options_base;

 protected:
  explicit RNNImplBase(const RNNOptionsBase& options);

  // Checks the input and returns it batched: (T, B, in), or (B, T, in) with
  // batch_first (B = 1 for an unbatched input).
  Tensor batched_input(const Tensor& input) const;
  // Checks a state (label "hx" or "cx", columns: its last size) against the
  // input and returns its L*D slices batched (zeros when undefined).
  std::vector<Tensor> initial_states(const Tensor& input, const Tensor& state, const char* label,
                                     int64_t columns) const;
  // Runs every layer and direction over x (batched_input's) from the states
  // h0, c0 (c0 empty but for LSTM). Returns (output, h_n, c_n), batched.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& x, const std::vector<Tensor>& h0,
                                         const std::vector<Tensor>& c0, const RNNStep& step);
  // The output, or h_n with is_output false, without its batch dim when the
  // input was unbatched.
  Tensor unbatch(const Tensor& input, const Tensor& result, bool is_output) const;
  int64_t num_directions() const { return options_base.bidirectional() ? 2 : 1; }

  // Checks a packed input against the layer and returns its batch size.
  int64_t packed_batch(const utils::rnn::PackedSequence& input) const;
  // initial_states for a packed input: checked against (L*D, batch, columns)
  // and put in the packed (sorted) batch order.
  std::vector<Tensor> packed_initial_states(const utils::rnn::PackedSequence& input,
                                            int64_t batch, const Tensor& state,
                                            const char* label, int64_t columns) const;
  // run() over a packed input: returns (output data, h_n, c_n), the states
  // in the original batch order.
  std::tuple<Tensor, Tensor, Tensor> run_packed(const utils::rnn::PackedSequence& input,
                                                const std::vector<Tensor>& h0,
                                                const std::vector<Tensor>& c0,
                                                const RNNStep& step);

  std::vector<RNNLayerWeights> layer_weights_;  // index: layer * D + direction
};

}  // namespace detail

// h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (relu with kReLU).
// Returns (output, h_n).
class RNNImpl : public detail::RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size)
      : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;
};
EMBER_MODULE(RNN);

// Returns (output, (h_n, c_n)); c_n: (L*D, B, H).
class LSTMImpl : public detail::RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);

  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

// Returns (output, h_n).
class GRUImpl : public detail::RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;
};
EMBER_MODULE(GRU);

}  // namespace ember::nn
