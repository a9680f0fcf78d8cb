#pragma once
// The gate equations of one time step, shared by the cells (rnn_cell.cpp) and
// the layers (rnn.cpp). Each takes the two affine parts already computed,
//   gx = x W_ih^T + b_ih  and  gh = h W_hh^T + b_hh,   both (B, G*H),
// so a layer can compute gx for every time step with one matmul. Gate order
// in the G*H columns is PyTorch's: LSTM i, f, g, o; GRU r, z, n.
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/init.h"

namespace ember::nn::detail {

// h' = act(gx + gh), act tanh or relu.
Tensor rnn_step(const Tensor& gx, const Tensor& gh, Nonlinearity nonlinearity);

// i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the chunks of gx + gh;
// c' = f c + i g, h' = o tanh(c'). Returns (h', c').
std::tuple<Tensor, Tensor> lstm_step(const Tensor& gx, const Tensor& gh, const Tensor& c);

// r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z),
// n = tanh(gx_n + r gh_n), h' = (1 - z) n + z h.
Tensor gru_step(const Tensor& gx, const Tensor& gh, const Tensor& h);

}  // namespace ember::nn::detail
