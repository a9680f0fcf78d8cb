#pragma once
// RNNCell, LSTMCell and GRUCell, as torch::nn's: one time step.
//   x: (B, input_size) or unbatched (input_size); h, c: (B, hidden_size) or
//   (hidden_size), zeros when not given.
// Parameters: weight_ih (G*H, input_size), weight_hh (G*H, H), bias_ih and
// bias_hh (G*H), with G = 1, 4, 3 gates and PyTorch's gate order (LSTM i, f,
// g, o; GRU r, z, n), all U(-1/sqrt(H), 1/sqrt(H)): a PyTorch state_dict loads.
#include <optional>
#include <ostream>
#include <string>
#include <tuple>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/rnn.h"

namespace ember::nn {

namespace detail {

// What the three cells share: the parameters, their checks and printing.
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;  // undefined with bias(false), as bias_hh
  Tensor bias_hh;

 protected:
  // gates: G, the number of stacked gates in the weights; name: for errors.
  RNNCellImplBase(const char* name, int64_t input_size, int64_t hidden_size, bool bias,
                  int64_t gates, std::string nonlinearity = "");

  // Checks x and returns it batched: (B, input_size).
  Tensor batched_input(const Tensor& input) const;
  // Checks a state (label: "hx" or "cx") against the input and returns it
  // batched, or zeros (B, hidden_size) when undefined.
  Tensor batched_state(const Tensor& input, const Tensor& state, const char* label) const;

  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_;
  std::string nonlinearity_;  // printed when not empty
};

}  // namespace detail

// h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (relu with nonlinearity(kReLU)).
class RNNCellImpl : public detail::RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);

  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

// Gates i, f, g, o; c' = f c + i g, h' = o tanh(c') (rnn_gates.h). Returns (h', c').
class LSTMCellImpl : public detail::RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);

  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

// Gates r, z, n; h' = (1 - z) n + z h (rnn_gates.h).
class GRUCellImpl : public detail::RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);

  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
