#include "ember/nn/modules/rnn_gates.h"

#include <vector>

#include "ember/core/ops/elementwise/unary.h"

namespace ember::nn::detail {

Tensor rnn_step(const Tensor& gx, const Tensor& gh, Nonlinearity nonlinearity) {
  const Tensor pre = gx + gh;
  return nonlinearity == kReLU ? relu(pre) : tanh(pre);
}

std::tuple<Tensor, Tensor> lstm_step(const Tensor& gx, const Tensor& gh, const Tensor& c) {
  const std::vector<Tensor> gates = (gx + gh).chunk(4, 1);  // views: i, f, g, o
  const Tensor c_next = sigmoid(gates[1]) * c + sigmoid(gates[0]) * tanh(gates[2]);
  return {sigmoid(gates[3]) * tanh(c_next), c_next};
}

Tensor gru_step(const Tensor& gx, const Tensor& gh, const Tensor& h) {
  // Columns [0, 2H) hold r and z, [2H, 3H) n; n needs gh_n apart (r scales it).
  const int64_t hidden = h.size(1);
  const std::vector<Tensor> x = gx.split(2 * hidden, 1), hh = gh.split(2 * hidden, 1);
  const std::vector<Tensor> rz = sigmoid(x[0] + hh[0]).chunk(2, 1);
  const Tensor n = tanh(x[1] + rz[0] * hh[1]);
  return n + rz[1] * (h - n);  // = (1 - z) n + z h
}

}  // namespace ember::nn::detail
