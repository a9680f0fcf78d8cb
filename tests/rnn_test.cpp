// RNNCell / LSTMCell / GRUCell and RNN / LSTM / GRU (nn/modules/rnn*.h).
// The cells are checked against their gate equations written out below as
// naive loops; the layers against the cells run by hand over the sequence;
// gradients by gradcheck in float64. A few values computed by PyTorch 1.13.1
// cross-check the whole (the torch code is given next to them).
#include "test_helpers.h"

#include <ember/nn/nn.h>
#include <ember/nn/serialize/module_io.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using Catch::Contains;
using ember_test::require_values;
using ember_test::values;

namespace {

using Vec = std::vector<double>;

double sigmoid_of(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// W x + b for one row x, W (rows, x.size()) row-major; b may be empty.
Vec affine(const Vec& w, const Vec& x, const Vec& b) {
  const size_t rows = w.size() / x.size();
  Vec y(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < x.size(); ++k) y[r] += w[r * x.size() + k] * x[k];
    if (!b.empty()) y[r] += b[r];
  }
  return y;
}

// The parameters of a cell as plain numbers.
struct CellParams {
  Vec w_ih, w_hh, b_ih, b_hh;
  template <typename Cell>
  explicit CellParams(const Cell& cell)
      : w_ih(values(cell->weight_ih)),
        w_hh(values(cell->weight_hh)),
        b_ih(cell->bias_ih.defined() ? values(cell->bias_ih) : Vec()),
        b_hh(cell->bias_hh.defined() ? values(cell->bias_hh) : Vec()) {}
};

// h' = act(W_ih x + b_ih + W_hh h + b_hh).
Vec naive_rnn_cell(const CellParams& p, const Vec& x, const Vec& h, bool relu) {
  const Vec a = affine(p.w_ih, x, p.b_ih), b = affine(p.w_hh, h, p.b_hh);
  Vec out(h.size());
  for (size_t j = 0; j < h.size(); ++j)
    out[j] = relu ? std::max(0.0, a[j] + b[j]) : std::tanh(a[j] + b[j]);
  return out;
}

// Rows [0, H) of a + b are i, [H, 2H) f, [2H, 3H) g, [3H, 4H) o:
// i, f, o = sigmoid; g = tanh; c' = f c + i g; h' = o tanh(c').
std::pair<Vec, Vec> naive_lstm_cell(const CellParams& p, const Vec& x, const Vec& h,
                                    const Vec& c) {
  const size_t n = h.size();
  const Vec a = affine(p.w_ih, x, p.b_ih), b = affine(p.w_hh, h, p.b_hh);
  Vec h_next(n), c_next(n);
  for (size_t j = 0; j < n; ++j) {
    const double i = sigmoid_of(a[j] + b[j]), f = sigmoid_of(a[n + j] + b[n + j]);
    const double g = std::tanh(a[2 * n + j] + b[2 * n + j]);
    const double o = sigmoid_of(a[3 * n + j] + b[3 * n + j]);
    c_next[j] = f * c[j] + i * g;
    h_next[j] = o * std::tanh(c_next[j]);
  }
  return {h_next, c_next};
}

// Rows [0, H) r, [H, 2H) z, [2H, 3H) n, with a = W_ih x + b_ih, b = W_hh h + b_hh:
// r = sigmoid(a_r + b_r), z = sigmoid(a_z + b_z), n = tanh(a_n + r b_n),
// h' = (1 - z) n + z h.
Vec naive_gru_cell(const CellParams& p, const Vec& x, const Vec& h) {
  const size_t m = h.size();
  const Vec a = affine(p.w_ih, x, p.b_ih), b = affine(p.w_hh, h, p.b_hh);
  Vec out(m);
  for (size_t j = 0; j < m; ++j) {
    const double r = sigmoid_of(a[j] + b[j]), z = sigmoid_of(a[m + j] + b[m + j]);
    const double n = std::tanh(a[2 * m + j] + r * b[2 * m + j]);
    out[j] = (1 - z) * n + z * h[j];
  }
  return out;
}

// Row r of a (rows, cols) tensor as numbers.
Vec row(const Tensor& t, int64_t r) { return values(t[r]); }

Vec concat(const std::vector<Vec>& parts) {
  Vec out;
  for (const Vec& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

void set(const Tensor& t, const Tensor& v) {
  NoGradGuard no_grad;
  Tensor(t).copy_(v.reshape(t.sizes()));
}

// Copies a layer's parameters for (layer, direction) into a cell.
template <typename Layer, typename Cell>
void copy_into_cell(Layer& layer, Cell& cell, int64_t l, bool reverse) {
  const std::string suffix = "_l" + std::to_string(l) + (reverse ? "_reverse" : "");
  auto params = layer->named_parameters();
  set(cell->weight_ih, params["weight_ih" + suffix]);
  set(cell->weight_hh, params["weight_hh" + suffix]);
  if (cell->bias_ih.defined()) {
    set(cell->bias_ih, params["bias_ih" + suffix]);
    set(cell->bias_hh, params["bias_hh" + suffix]);
  }
}

// A recurrent state: {h} or {h, c}.
using State = std::vector<Tensor>;
// One step of the cell for (layer, direction) index k: (k, x_t, state) -> state.
using CellStep = std::function<State(size_t k, const Tensor& x_t, const State& s)>;

struct HandRun {
  Tensor output;              // (T, B, D*H)
  std::vector<State> finals;  // per index k = layer * D + direction
};

// The layers by hand: each (layer, direction) runs its cell over the time-major
// x (T, B, in), the reverse direction from the last step to the first; a
// layer's output is its directions' h side by side, the next layer's input.
HandRun run_by_hand(const Tensor& x, int64_t layers, int64_t directions,
                    const std::vector<State>& init, const CellStep& cell) {
  HandRun result{x, std::vector<State>(init.size())};
  const int64_t steps = x.size(0);
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<Tensor> per_direction;
    for (int64_t d = 0; d < directions; ++d) {
      const size_t k = static_cast<size_t>(l * directions + d);
      State s = init[k];
      std::vector<Tensor> outs(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = d == 1 ? steps - 1 - i : i;
        s = cell(k, result.output[t], s);
        outs[static_cast<size_t>(t)] = s[0];
      }
      result.finals[k] = s;
      per_direction.push_back(stack(outs, 0));
    }
    result.output = cat(per_direction, 2);
  }
  return result;
}

// Slices k of a (L*D, B, H) state tensor.
std::vector<State> split_states(const Tensor& h, const Tensor& c = {}) {
  std::vector<State> out;
  for (int64_t k = 0; k < h.size(0); ++k)
    out.push_back(c.defined() ? State{h[k], c[k]} : State{h[k]});
  return out;
}

// inputs followed by every parameter of the module (for gradcheck).
template <typename Layer>
tensor_list with_parameters(const Layer& layer, tensor_list inputs) {
  for (const Tensor& p : layer->parameters()) inputs.push_back(p);
  return inputs;
}

}  // namespace

// ------------------------------------------------------------------ cells

TEST_CASE("RNNCell is tanh or relu of W_ih x + b_ih + W_hh h + b_hh", "[rnn]") {
  manual_seed(3);
  for (bool relu : {false, true}) {
    nn::RNNCell cell(nn::RNNCellOptions(3, 2).nonlinearity(relu ? kReLU : kTanh));
    cell->to(kDouble);
    const Tensor x = randn({4, 3}, kDouble), h = randn({4, 2}, kDouble);
    const CellParams p(cell);
    std::vector<Vec> want;
    for (int64_t b = 0; b < 4; ++b) want.push_back(naive_rnn_cell(p, row(x, b), row(h, b), relu));
    require_values(cell(x, h), concat(want));
    // Without hx the state is zeros; an unbatched input is one row.
    require_values(cell(x[1]), naive_rnn_cell(p, row(x, 1), Vec(2, 0.0), relu));
    REQUIRE(cell(x[1], h[1]).sizes() == IntArrayRef{2});
    require_values(cell(x[1], h[1]), want[1]);
  }
}

TEST_CASE("LSTMCell follows the i, f, g, o gate equations", "[rnn]") {
  manual_seed(4);
  nn::LSTMCell cell(3, 2);
  cell->to(kDouble);
  const Tensor x = randn({3, 3}, kDouble), h = randn({3, 2}, kDouble), c = randn({3, 2}, kDouble);
  const CellParams p(cell);
  std::vector<Vec> want_h, want_c;
  for (int64_t b = 0; b < 3; ++b) {
    auto [hb, cb] = naive_lstm_cell(p, row(x, b), row(h, b), row(c, b));
    want_h.push_back(hb);
    want_c.push_back(cb);
  }
  auto [h1, c1] = cell(x, std::make_tuple(h, c));
  require_values(h1, concat(want_h));
  require_values(c1, concat(want_c));
  // Unbatched, and zero state by default.
  auto [hu, cu] = cell(x[2], std::make_tuple(h[2], c[2]));
  REQUIRE(hu.sizes() == IntArrayRef{2});
  require_values(hu, want_h[2]);
  require_values(cu, want_c[2]);
  auto [h0, c0] = naive_lstm_cell(p, row(x, 0), Vec(2, 0.0), Vec(2, 0.0));
  auto [hz, cz] = cell(x);
  require_values(hz[0], h0);
  require_values(cz[0], c0);
}

TEST_CASE("GRUCell follows the r, z, n gate equations with r scaling W_hn h + b_hn", "[rnn]") {
  manual_seed(5);
  for (bool bias : {true, false}) {
    nn::GRUCell cell(nn::GRUCellOptions(3, 2).bias(bias));
    cell->to(kDouble);
    REQUIRE(cell->bias_ih.defined() == bias);
    const Tensor x = randn({3, 3}, kDouble), h = randn({3, 2}, kDouble);
    const CellParams p(cell);
    std::vector<Vec> want;
    for (int64_t b = 0; b < 3; ++b) want.push_back(naive_gru_cell(p, row(x, b), row(h, b)));
    require_values(cell(x, h), concat(want));
    require_values(cell(x[0], h[0]), want[0]);
    require_values(cell(x)[1], naive_gru_cell(p, row(x, 1), Vec(2, 0.0)));
  }
}

TEST_CASE("Cell gradients pass gradcheck and gradgradcheck in float64", "[rnn]") {
  manual_seed(6);
  nn::LSTMCell lstm(2, 3);
  nn::GRUCell gru(2, 3);
  nn::RNNCell rnn(2, 3);
  lstm->to(kDouble);
  gru->to(kDouble);
  rnn->to(kDouble);
  const Tensor x = randn({2, 2}, kDouble).requires_grad_();
  const Tensor h = randn({2, 3}, kDouble).requires_grad_();
  const Tensor c = randn({2, 3}, kDouble).requires_grad_();
  auto lstm_fn = [&lstm](const tensor_list& in) {
    auto [h1, c1] = lstm(in[0], std::make_tuple(in[1], in[2]));
    return cat({h1, c1}, 1);
  };
  auto gru_fn = [&gru](const tensor_list& in) { return gru(in[0], in[1]); };
  auto rnn_fn = [&rnn](const tensor_list& in) { return rnn(in[0], in[1]); };
  REQUIRE_GRADCHECK(gradcheck(lstm_fn, with_parameters(lstm, {x, h, c})));
  REQUIRE_GRADCHECK(gradcheck(gru_fn, with_parameters(gru, {x, h})));
  REQUIRE_GRADCHECK(gradcheck(rnn_fn, with_parameters(rnn, {x, h})));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(lstm_fn, {x, h, c}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(gru_fn, {x, h}));
}

// ------------------------------------------------------------------ layers vs cells

TEST_CASE("LSTM equals its cells run by hand over layers, directions and batch_first", "[rnn]") {
  manual_seed(7);
  const int64_t steps = 4, batch = 2, in = 3, hidden = 2;
  for (bool bidirectional : {false, true}) {
    for (bool batch_first : {false, true}) {
      INFO("bidirectional " << bidirectional << ", batch_first " << batch_first);
      const int64_t dirs = bidirectional ? 2 : 1, layers = 2;
      nn::LSTM lstm(nn::LSTMOptions(in, hidden)
                        .num_layers(layers)
                        .bidirectional(bidirectional)
                        .batch_first(batch_first));
      lstm->to(kDouble);
      std::vector<nn::LSTMCell> cells;
      for (int64_t l = 0; l < layers; ++l) {
        for (int64_t d = 0; d < dirs; ++d) {
          cells.emplace_back(l == 0 ? in : dirs * hidden, hidden);
          cells.back()->to(kDouble);
          copy_into_cell(lstm, cells.back(), l, d == 1);
        }
      }
      const Tensor x = randn({steps, batch, in}, kDouble);  // time-major
      const Tensor h0 = randn({layers * dirs, batch, hidden}, kDouble);
      const Tensor c0 = randn({layers * dirs, batch, hidden}, kDouble);
      const HandRun want = run_by_hand(
          x, layers, dirs, split_states(h0, c0), [&cells](size_t k, const Tensor& xt, const State& s) {
            auto [h, c] = cells[k](xt, std::make_tuple(s[0], s[1]));
            return State{h, c};
          });
      auto [output, state] = lstm(batch_first ? x.transpose(0, 1) : x, std::make_tuple(h0, c0));
      auto [h_n, c_n] = state;
      require_values(batch_first ? output.transpose(0, 1) : output, values(want.output), 1e-12);
      for (int64_t k = 0; k < layers * dirs; ++k) {
        require_values(h_n[k], values(want.finals[k][0]));
        require_values(c_n[k], values(want.finals[k][1]));
      }
    }
  }
}

TEST_CASE("GRU and RNN equal their cells run by hand", "[rnn]") {
  manual_seed(8);
  const int64_t steps = 3, batch = 2, in = 2, hidden = 3, layers = 2, dirs = 2;
  const Tensor x = randn({steps, batch, in}, kDouble);
  const Tensor h0 = randn({layers * dirs, batch, hidden}, kDouble);
  SECTION("GRU") {
    nn::GRU gru(nn::GRUOptions(in, hidden).num_layers(layers).bidirectional(true));
    gru->to(kDouble);
    std::vector<nn::GRUCell> cells;
    for (int64_t k = 0; k < layers * dirs; ++k) {
      cells.emplace_back(k < dirs ? in : dirs * hidden, hidden);
      cells.back()->to(kDouble);
      copy_into_cell(gru, cells.back(), k / dirs, k % dirs == 1);
    }
    const HandRun want = run_by_hand(x, layers, dirs, split_states(h0),
                                     [&cells](size_t k, const Tensor& xt, const State& s) {
                                       return State{cells[k](xt, s[0])};
                                     });
    auto [output, h_n] = gru(x, h0);
    require_values(output, values(want.output));
    for (int64_t k = 0; k < layers * dirs; ++k) require_values(h_n[k], values(want.finals[k][0]));
  }
  SECTION("RNN with relu and no bias, batch_first") {
    nn::RNN rnn(nn::RNNOptions(in, hidden)
                    .num_layers(layers)
                    .bidirectional(true)
                    .nonlinearity(kReLU)
                    .bias(false)
                    .batch_first(true));
    rnn->to(kDouble);
    std::vector<nn::RNNCell> cells;
    for (int64_t k = 0; k < layers * dirs; ++k) {
      cells.emplace_back(
          nn::RNNCellOptions(k < dirs ? in : dirs * hidden, hidden).nonlinearity(kReLU).bias(false));
      cells.back()->to(kDouble);
      copy_into_cell(rnn, cells.back(), k / dirs, k % dirs == 1);
    }
    const HandRun want = run_by_hand(x, layers, dirs, split_states(h0),
                                     [&cells](size_t k, const Tensor& xt, const State& s) {
                                       return State{cells[k](xt, s[0])};
                                     });
    auto [output, h_n] = rnn(x.transpose(0, 1), h0);
    require_values(output.transpose(0, 1), values(want.output));
    for (int64_t k = 0; k < layers * dirs; ++k) require_values(h_n[k], values(want.finals[k][0]));
  }
}

TEST_CASE("LSTM with proj_size projects h by weight_hr each step", "[rnn]") {
  manual_seed(9);
  const int64_t hidden = 3, proj = 2;
  nn::LSTM lstm(nn::LSTMOptions(2, hidden).proj_size(proj));
  lstm->to(kDouble);
  auto p = lstm->named_parameters();
  const Tensor x = randn({3, 2, 2}, kDouble);
  // Written with plain ops: gates = x W_ih^T + b_ih + h W_hh^T + b_hh (i, f, g, o),
  // c = f c + i g, h = (o tanh(c)) W_hr^T.
  Tensor h = zeros({2, proj}, kDouble), c = zeros({2, hidden}, kDouble);
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < 3; ++t) {
    const Tensor gates = x[t].matmul(p["weight_ih_l0"].t()) + p["bias_ih_l0"] +
                         h.matmul(p["weight_hh_l0"].t()) + p["bias_hh_l0"];
    const auto g = gates.chunk(4, 1);
    c = g[1].sigmoid() * c + g[0].sigmoid() * g[2].tanh();
    h = (g[3].sigmoid() * c.tanh()).matmul(p["weight_hr_l0"].t());
    outs.push_back(h);
  }
  auto [output, state] = lstm(x);
  require_values(output, values(stack(outs, 0)));
  require_values(std::get<0>(state)[0], values(h));
  require_values(std::get<1>(state)[0], values(c));
}

TEST_CASE("Dropout applies between layers in training only", "[rnn]") {
  manual_seed(10);
  const Tensor x = randn({3, 2, 2});
  nn::GRU gru(nn::GRUOptions(2, 3).num_layers(2).dropout(1.0));
  nn::GRU plain(nn::GRUOptions(2, 3).num_layers(2));
  for (const auto& item : gru->named_parameters())
    set(plain->named_parameters()[item.key()], item.value());
  // dropout(p = 1) zeroes the first layer's output: the second layer sees zeros.
  nn::GRUCell second(3, 3);
  copy_into_cell(gru, second, 1, false);
  Tensor h = zeros({2, 3});
  for (int64_t t = 0; t < 3; ++t) h = second(zeros({2, 3}), h);
  require_values(std::get<1>(gru(x))[1], values(h), 1e-6);
  gru->eval();
  require_values(std::get<0>(gru(x)), values(std::get<0>(plain(x))), 1e-6);
  // One layer: nothing to drop, training or not.
  nn::LSTM one(nn::LSTMOptions(2, 3).dropout(1.0));
  const Tensor trained = std::get<0>(one(x));
  one->eval();
  require_values(trained, values(std::get<0>(one(x))), 1e-6);
}

TEST_CASE("An unbatched input gives the results of a batch of one", "[rnn]") {
  manual_seed(13);
  const Tensor x = randn({4, 3}, kDouble), h0 = randn({4, 2}, kDouble), c0 = randn({4, 2}, kDouble);
  for (bool batch_first : {false, true}) {
    nn::LSTM lstm(
        nn::LSTMOptions(3, 2).num_layers(2).bidirectional(true).batch_first(batch_first));
    lstm->to(kDouble);
    auto [out, state] = lstm(x, std::make_tuple(h0, c0));
    auto [out_b, state_b] = lstm(x.unsqueeze(batch_first ? 0 : 1),
                                 std::make_tuple(h0.unsqueeze(1), c0.unsqueeze(1)));
    REQUIRE(out.sizes() == IntArrayRef{4, 4});
    require_values(out, values(out_b));
    require_values(std::get<0>(state), values(std::get<0>(state_b)));
    require_values(std::get<1>(state), values(std::get<1>(state_b)));
  }
}

// ------------------------------------------------------------------ shapes

TEST_CASE("Output and state shapes for every option combination", "[rnn]") {
  const int64_t steps = 5, batch = 3, in = 4, hidden = 6, proj = 2;
  for (int kind = 0; kind < 4; ++kind) {  // RNN, GRU, LSTM, LSTM with proj_size
    for (int64_t layers : {1, 2}) {
      for (bool bidirectional : {false, true}) {
        for (bool batch_first : {false, true}) {
          for (bool bias : {false, true}) {
            for (bool batched : {true, false}) {
              for (bool with_hx : {false, true}) {
                INFO("kind " << kind << " layers " << layers << " bidirectional " << bidirectional
                             << " batch_first " << batch_first << " bias " << bias << " batched "
                             << batched << " hx " << with_hx);
                const int64_t dirs = bidirectional ? 2 : 1;
                const int64_t h_cols = kind == 3 ? proj : hidden;
                const Tensor x = batched ? (batch_first ? randn({batch, steps, in})
                                                        : randn({steps, batch, in}))
                                         : randn({steps, in});
                const Tensor hx = batched ? randn({layers * dirs, batch, h_cols})
                                          : randn({layers * dirs, h_cols});
                const Tensor cx = batched ? randn({layers * dirs, batch, hidden})
                                          : randn({layers * dirs, hidden});
                Tensor output, h_n, c_n;
                if (kind == 0) {
                  nn::RNN m(nn::RNNOptions(in, hidden).num_layers(layers).bidirectional(
                      bidirectional).batch_first(batch_first).bias(bias));
                  std::tie(output, h_n) = with_hx ? m(x, hx) : m(x);
                } else if (kind == 1) {
                  nn::GRU m(nn::GRUOptions(in, hidden).num_layers(layers).bidirectional(
                      bidirectional).batch_first(batch_first).bias(bias));
                  std::tie(output, h_n) = with_hx ? m(x, hx) : m(x);
                } else {
                  nn::LSTM m(nn::LSTMOptions(in, hidden).num_layers(layers).bidirectional(
                      bidirectional).batch_first(batch_first).bias(bias).proj_size(
                      kind == 3 ? proj : 0));
                  std::tuple<Tensor, Tensor> state;
                  std::tie(output, state) = with_hx ? m(x, std::make_tuple(hx, cx)) : m(x);
                  std::tie(h_n, c_n) = state;
                }
                const std::vector<int64_t> want_out =
                    !batched      ? std::vector<int64_t>{steps, dirs * h_cols}
                    : batch_first ? std::vector<int64_t>{batch, steps, dirs * h_cols}
                                  : std::vector<int64_t>{steps, batch, dirs * h_cols};
                REQUIRE(output.sizes() == IntArrayRef(want_out));
                REQUIRE(h_n.sizes() == hx.sizes());
                if (kind >= 2) REQUIRE(c_n.sizes() == cx.sizes());
              }
            }
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------------ gradients

TEST_CASE("LSTM and GRU gradients pass gradcheck in float64", "[rnn]") {
  manual_seed(11);
  const Tensor x = randn({3, 2, 2}, kDouble).requires_grad_();
  const Tensor h0 = randn({4, 2, 2}, kDouble).requires_grad_();
  SECTION("LSTM, 2 layers, bidirectional, batch_first") {
    nn::LSTM lstm(nn::LSTMOptions(2, 2).num_layers(2).bidirectional(true).batch_first(true));
    lstm->to(kDouble);
    auto fn = [&lstm](const tensor_list& in) {
      auto [output, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
      return cat({output.flatten(), std::get<0>(state).flatten(), std::get<1>(state).flatten()});
    };
    // x read as (B = 3, T = 2, 2).
    const Tensor h = randn({4, 3, 2}, kDouble).requires_grad_();
    const Tensor c = randn({4, 3, 2}, kDouble).requires_grad_();
    REQUIRE_GRADCHECK(gradcheck(fn, with_parameters(lstm, {x, h, c})));
  }
  SECTION("LSTM with proj_size") {
    nn::LSTM lstm(nn::LSTMOptions(2, 3).proj_size(2));
    lstm->to(kDouble);
    const Tensor h = randn({1, 2, 2}, kDouble).requires_grad_();
    const Tensor c = randn({1, 2, 3}, kDouble).requires_grad_();
    auto fn = [&lstm](const tensor_list& in) {
      auto [output, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
      return cat({output.flatten(), std::get<1>(state).flatten()});
    };
    REQUIRE_GRADCHECK(gradcheck(fn, with_parameters(lstm, {x, h, c})));
  }
  SECTION("GRU, 2 layers, bidirectional") {
    nn::GRU gru(nn::GRUOptions(2, 2).num_layers(2).bidirectional(true));
    gru->to(kDouble);
    auto fn = [&gru](const tensor_list& in) {
      auto [output, h_n] = gru(in[0], in[1]);
      return cat({output.flatten(), h_n.flatten()});
    };
    REQUIRE_GRADCHECK(gradcheck(fn, with_parameters(gru, {x, h0})));
    // Unbatched input, no initial state.
    const Tensor xu = randn({3, 2}, kDouble).requires_grad_();
    auto fn_u = [&gru](const tensor_list& in) { return std::get<0>(gru(in[0])); };
    REQUIRE_GRADCHECK(gradcheck(fn_u, with_parameters(gru, {xu})));
  }
}

// ------------------------------------------------------------------ parameters

TEST_CASE("Parameter names, shapes and order are PyTorch's", "[rnn]") {
  auto shapes = [](const nn::Module& m) {
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& item : m.named_parameters())
      out.emplace_back(item.key(), std::vector<int64_t>(item.value().sizes().begin(),
                                                        item.value().sizes().end()));
    return out;
  };
  using Expected = std::vector<std::pair<std::string, std::vector<int64_t>>>;
  // [(n, tuple(p.shape)) for n, p in torch.nn.LSTM(3, 4, num_layers=2,
  //  bidirectional=True).named_parameters()] in torch 1.13.1:
  REQUIRE(shapes(*nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true))) ==
          Expected{{"weight_ih_l0", {16, 3}},         {"weight_hh_l0", {16, 4}},
                   {"bias_ih_l0", {16}},              {"bias_hh_l0", {16}},
                   {"weight_ih_l0_reverse", {16, 3}}, {"weight_hh_l0_reverse", {16, 4}},
                   {"bias_ih_l0_reverse", {16}},      {"bias_hh_l0_reverse", {16}},
                   {"weight_ih_l1", {16, 8}},         {"weight_hh_l1", {16, 4}},
                   {"bias_ih_l1", {16}},              {"bias_hh_l1", {16}},
                   {"weight_ih_l1_reverse", {16, 8}}, {"weight_hh_l1_reverse", {16, 4}},
                   {"bias_ih_l1_reverse", {16}},      {"bias_hh_l1_reverse", {16}}});
  // torch.nn.GRU(3, 4, bias=False); torch.nn.LSTM(3, 4, proj_size=2); torch.nn.RNN(3, 4).
  REQUIRE(shapes(*nn::GRU(nn::GRUOptions(3, 4).bias(false))) ==
          Expected{{"weight_ih_l0", {12, 3}}, {"weight_hh_l0", {12, 4}}});
  REQUIRE(shapes(*nn::LSTM(nn::LSTMOptions(3, 4).proj_size(2))) ==
          Expected{{"weight_ih_l0", {16, 3}},
                   {"weight_hh_l0", {16, 2}},
                   {"bias_ih_l0", {16}},
                   {"bias_hh_l0", {16}},
                   {"weight_hr_l0", {2, 4}}});
  REQUIRE(shapes(*nn::RNN(3, 4)) == Expected{{"weight_ih_l0", {4, 3}},
                                             {"weight_hh_l0", {4, 4}},
                                             {"bias_ih_l0", {4}},
                                             {"bias_hh_l0", {4}}});
  // torch.nn.LSTMCell(3, 4) and torch.nn.GRUCell(3, 4, bias=False).
  REQUIRE(shapes(*nn::LSTMCell(3, 4)) == Expected{{"weight_ih", {16, 3}},
                                                  {"weight_hh", {16, 4}},
                                                  {"bias_ih", {16}},
                                                  {"bias_hh", {16}}});
  REQUIRE(shapes(*nn::GRUCell(nn::GRUCellOptions(3, 4).bias(false))) ==
          Expected{{"weight_ih", {12, 3}}, {"weight_hh", {12, 4}}});
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  REQUIRE(lstm->all_weights().size() == 8);
  REQUIRE(lstm->all_weights()[4].is_same(lstm->named_parameters()["weight_ih_l1"]));
}

TEST_CASE("Parameters start U(-1/sqrt(hidden), 1/sqrt(hidden))", "[rnn]") {
  manual_seed(12);
  const double bound = 1.0 / std::sqrt(16.0);
  nn::LSTM lstm(nn::LSTMOptions(8, 16).num_layers(2));
  nn::GRUCell cell(8, 16);
  std::vector<Tensor> params = lstm->parameters();
  for (const Tensor& p : cell->parameters()) params.push_back(p);
  for (const Tensor& p : params) {
    const Vec v = values(p);
    REQUIRE(*std::max_element(v.begin(), v.end()) <= bound);
    REQUIRE(*std::min_element(v.begin(), v.end()) >= -bound);
    if (v.size() >= 64) {  // spread over the range, not a constant
      REQUIRE(*std::max_element(v.begin(), v.end()) > 0.8 * bound);
      REQUIRE(*std::min_element(v.begin(), v.end()) < -0.8 * bound);
    }
  }
}

TEST_CASE("Printing follows libtorch", "[rnn]") {
  auto printed = [](const auto& m) {
    std::ostringstream s;
    s << m;
    return s.str();
  };
  REQUIRE(printed(nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).batch_first(true))) ==
          "LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, batch_first=true, "
          "dropout=0, bidirectional=false)");
  REQUIRE(printed(nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity(kReLU).bias(false))) ==
          "RNNCell(3, 4, bias=false, nonlinearity=kReLU)");
  REQUIRE(printed(nn::GRUCell(3, 4)) == "GRUCell(3, 4)");
}

// ------------------------------------------------------------------ PyTorch cross-check

// Weights as a function of position, the same in torch and here: parameter
// number q (named_parameters order), flat element e: 0.5 * sin(q + 0.7 e).
void set_formula_weights(nn::Module& m) {
  OrderedDict<std::string, Tensor> state;
  int q = 0;
  for (const auto& item : m.named_parameters()) {
    const Tensor e = arange(item.value().numel(), kDouble);
    state.insert(item.key(), ((e * 0.7 + q++).sin() * 0.5).reshape(item.value().sizes()).to(kFloat));
  }
  REQUIRE(load_state_dict(m, state).ok());
}

TEST_CASE("LSTM and GRU outputs match PyTorch 1.13.1 for the same state_dict", "[rnn]") {
  // import torch
  // def fill(m):
  //   with torch.no_grad():
  //     for q, (n, p) in enumerate(m.named_parameters()):
  //       e = torch.arange(p.numel(), dtype=torch.float64)
  //       p.copy_((0.5 * torch.sin(q + 0.7 * e)).reshape(p.shape))
  // x = torch.sin(torch.arange(12, dtype=torch.float32)).reshape(3, 2, 2)
  // lstm = torch.nn.LSTM(2, 3, num_layers=2, bidirectional=True); fill(lstm)
  // out, (h, c) = lstm(x)
  // gru = torch.nn.GRU(2, 3, batch_first=True); fill(gru)
  // gout, gh = gru(x)
  const Tensor x = arange(12, kFloat).sin().reshape({3, 2, 2});
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  set_formula_weights(*lstm);
  auto [out, state] = lstm(x);
  // out[-1, 1].tolist() and c[3, 0].tolist():
  require_values(out[2][1], {0.309138, -0.006125628, -0.106719, -0.1629928, 0.08764441, 0.2736492}, 1e-5);
  require_values(std::get<1>(state)[3][0], {-0.257022, 0.06265369, 0.8510626}, 1e-5);
  nn::GRU gru(nn::GRUOptions(2, 3).batch_first(true));
  set_formula_weights(*gru);
  auto [gout, gh] = gru(x);
  // gout[1].flatten().tolist():
  require_values(gout[1], {-0.1499504, 0.4741143, 0.6214463, 0.2704888, 0.1704887, 0.570428}, 1e-5);
}

// ------------------------------------------------------------------ errors

TEST_CASE("Bad input raises errors naming the module and the shapes", "[rnn]") {
  nn::LSTM lstm(3, 4);
  REQUIRE_THROWS_WITH(lstm(zeros({5, 2, 4})),
                      Contains("LSTM") && Contains("input_size") && Contains("[5, 2, 4]"));
  REQUIRE_THROWS_WITH(lstm(zeros({2, 2, 2, 3})),
                      Contains("LSTM") && Contains("2-D") && Contains("[2, 2, 2, 3]"));
  REQUIRE_THROWS_WITH(lstm(zeros({5, 2, 3}), std::make_tuple(zeros({1, 3, 4}), zeros({1, 2, 4}))),
                      Contains("LSTM: expected hx of shape [1, 2, 4], got [1, 3, 4]"));
  REQUIRE_THROWS_WITH(lstm(zeros({5, 2, 3}), std::make_tuple(zeros({1, 2, 4}), zeros({1, 2, 5}))),
                      Contains("expected cx of shape [1, 2, 4], got [1, 2, 5]"));
  REQUIRE_THROWS_WITH(lstm(zeros({5, 2, 3}), std::make_tuple(zeros({2, 4}), zeros({2, 4}))),
                      Contains("LSTM") && Contains("hx should also be 3-D") && Contains("[2, 4]"));
  REQUIRE_THROWS_WITH(lstm(zeros({5, 2, 3}, kDouble)),
                      Contains("LSTM: input is float64") && Contains("parameters are float32"));
  REQUIRE_THROWS_WITH(lstm(zeros({0, 2, 3})), Contains("sequence length"));
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2));
  REQUIRE_THROWS_WITH(gru(zeros({5, 3}), zeros({1, 4})),
                      Contains("GRU: expected hx of shape [2, 4], got [1, 4]"));
  nn::RNN rnn(3, 4);
  REQUIRE_THROWS_WITH(rnn(zeros({5, 2, 3}), zeros({1, 2, 4}, kDouble)),
                      Contains("RNN: hx is float64"));
  nn::GRUCell cell(3, 4);
  REQUIRE_THROWS_WITH(cell(zeros({2, 5})),
                      Contains("GRUCell") && Contains("input_size") && Contains("[2, 5]"));
  REQUIRE_THROWS_WITH(cell(zeros({2, 3}), zeros({3, 4})),
                      Contains("GRUCell: hx of shape [3, 4]") && Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(cell(zeros({2, 3}), zeros({4})), Contains("GRUCell: hx must have 2 dims"));
  REQUIRE_THROWS_WITH(nn::LSTMCell(3, 4)(zeros({3}), std::make_tuple(zeros({4}), zeros({5}))),
                      Contains("LSTMCell: cx of shape [5]"));
  REQUIRE_THROWS_WITH(nn::RNNCell(3, 4)(zeros({1, 2, 3})), Contains("RNNCell") && Contains("1-D"));
  // Bad options.
  REQUIRE_THROWS_WITH(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)), Contains("proj_size"));
  REQUIRE_THROWS_WITH(nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)), Contains("GRU: dropout"));
  REQUIRE_THROWS_WITH(nn::RNN(nn::RNNOptions(3, 4).num_layers(0)), Contains("num_layers"));
  REQUIRE_THROWS_WITH(nn::RNN(nn::RNNOptions(3, 4).nonlinearity(kSigmoid)),
                      Contains("kTanh or kReLU"));
  REQUIRE_THROWS_WITH(nn::LSTMCell(3, 0), Contains("LSTMCell") && Contains("hidden_size"));
}
