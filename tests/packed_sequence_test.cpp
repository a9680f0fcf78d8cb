// nn::utils::rnn (nn/utils/rnn.cpp) and RNN/LSTM/GRU over packed input
// (nn/modules/rnn_packed.cpp): the packed layout by hand, the padding round
// trip, the layers against each sequence run alone through the same layer's
// unpacked forward (itself checked against the gate equations in
// rnn_test.cpp), gradcheck through pack -> LSTM -> pad, errors.
#include "test_helpers.h"

#include <ember/nn/nn.h>

#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;
using Catch::Contains;
using autograd::gradcheck;
namespace rnn_utils = ember::nn::utils::rnn;
using rnn_utils::PackedSequence;

namespace {

// x[t][b][f] = 10 t + b + 0.5 f, time-first (T, B, F).
Tensor counting_input(int64_t steps, int64_t batch, int64_t features) {
  std::vector<double> v;
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t f = 0; f < features; ++f) v.push_back(10.0 * t + b + 0.5 * f);
  return tensor(v, kDouble).view({steps, batch, features});
}

std::vector<int64_t> longs(const Tensor& t) {
  std::vector<int64_t> out;
  for (double v : values(t)) out.push_back(static_cast<int64_t>(v));
  return out;
}

}  // namespace

TEST_CASE("pack_padded_sequence sorts by length and packs time step by time step",
          "[packed_sequence]") {
  const Tensor x = counting_input(3, 3, 1);  // x[t][b] = 10 t + b
  // Lengths 3, 1, 2: sorted order b = 0, 2, 1.
  const PackedSequence p = rnn_utils::pack_padded_sequence(x, tensor({3, 1, 2}), false, false);
  require_values(p.data(), {0, 2, 1, 10, 12, 20});
  REQUIRE(p.data().sizes() == IntArrayRef{6, 1});
  REQUIRE(p.batch_sizes().scalar_type() == kLong);
  REQUIRE(longs(p.batch_sizes()) == std::vector<int64_t>{3, 2, 1});
  REQUIRE(longs(p.sorted_indices()) == std::vector<int64_t>{0, 2, 1});
  REQUIRE(longs(p.unsorted_indices()) == std::vector<int64_t>{0, 2, 1});
  // batch_first: the same sequences give the same packed rows.
  const PackedSequence q =
      rnn_utils::pack_padded_sequence(x.transpose(0, 1), tensor({3, 1, 2}), true, false);
  require_values(q.data(), values(p.data()));
  // Already sorted: no indices.
  const PackedSequence r = rnn_utils::pack_padded_sequence(x, tensor({3, 3, 1}));
  require_values(r.data(), {0, 1, 2, 10, 11, 20, 21});
  REQUIRE(longs(r.batch_sizes()) == std::vector<int64_t>{3, 2, 2});
  REQUIRE_FALSE(r.sorted_indices().defined());
  REQUIRE_FALSE(r.unsorted_indices().defined());
}

TEST_CASE("pad_packed_sequence undoes pack_padded_sequence in the original batch order",
          "[packed_sequence]") {
  const int64_t T = 4, B = 3, F = 2;
  const Tensor x = counting_input(T, B, F);
  const std::vector<int64_t> len = {2, 4, 1};
  for (bool batch_first : {false, true}) {
    INFO("batch_first " << batch_first);
    const Tensor in = batch_first ? x.transpose(0, 1) : x;
    const PackedSequence p = rnn_utils::pack_padded_sequence(in, tensor(len), batch_first, false);
    for (int64_t total : {4, 6}) {
      auto [padded, lengths] =
          rnn_utils::pad_packed_sequence(p, batch_first, -1.0, total == 4 ? std::nullopt
                                                                          : std::optional(total));
      REQUIRE(lengths.scalar_type() == kLong);
      REQUIRE(longs(lengths) == len);
      const Tensor tb = batch_first ? padded.transpose(0, 1) : padded;
      REQUIRE(tb.sizes() == IntArrayRef{total, B, F});
      std::vector<double> want;
      for (int64_t t = 0; t < total; ++t)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t f = 0; f < F; ++f)
            want.push_back(t < len[static_cast<size_t>(b)] ? 10.0 * t + b + 0.5 * f : -1.0);
      require_values(tb, want);
    }
  }
}

TEST_CASE("pad_sequence and pack_sequence", "[packed_sequence]") {
  const Tensor a = tensor({1.0, 2.0, 3.0}, kDouble), b = tensor({4.0}, kDouble),
               c = tensor({5.0, 6.0}, kDouble);
  const Tensor padded = rnn_utils::pad_sequence({a, b, c});
  REQUIRE(padded.sizes() == IntArrayRef{3, 3});
  require_values(padded, {1, 4, 5, 2, 0, 6, 3, 0, 0});
  require_values(rnn_utils::pad_sequence({a, b, c}, true, 9.0), {1, 2, 3, 4, 9, 9, 5, 6, 9});
  // Trailing dims are kept.
  REQUIRE(rnn_utils::pad_sequence({a.view({3, 1}), b.view({1, 1})}).sizes() ==
          IntArrayRef{3, 2, 1});

  const PackedSequence p = rnn_utils::pack_sequence({a, b, c}, false);
  require_values(p.data(), {1, 5, 4, 2, 6, 3});
  REQUIRE(longs(p.batch_sizes()) == std::vector<int64_t>{3, 2, 1});
  REQUIRE(longs(p.sorted_indices()) == std::vector<int64_t>{0, 2, 1});
  const PackedSequence sorted = rnn_utils::pack_sequence({a, c, b});
  require_values(sorted.data(), {1, 5, 4, 2, 6, 3});
  REQUIRE_FALSE(sorted.sorted_indices().defined());
}

TEST_CASE("PackedSequence computes unsorted_indices and converts with to()",
          "[packed_sequence]") {
  const PackedSequence p(tensor({1.0, 2.0, 3.0}), tensor({2, 1}), tensor({1, 0}));
  REQUIRE(longs(p.unsorted_indices()) == std::vector<int64_t>{1, 0});
  REQUIRE(longs(rnn_utils::invert_permutation(tensor({2, 0, 3, 1}))) ==
          std::vector<int64_t>{1, 3, 0, 2});
  const PackedSequence d = p.to(kDouble);
  REQUIRE(d.data().scalar_type() == kDouble);
  REQUIRE(d.batch_sizes().device().is_cpu());
  REQUIRE(d.sorted_indices().scalar_type() == kLong);
  REQUIRE(p.to(kFloat).data().is_same(p.data()));
  REQUIRE_FALSE(p.is_cuda());
}

TEST_CASE("Packing and padding pass gradcheck", "[packed_sequence]") {
  manual_seed(11);
  const Tensor x = randn({4, 3, 2}, kDouble).requires_grad_();
  const Tensor lengths = tensor({2, 4, 3});
  auto round_trip = [&](const tensor_list& in) {
    const PackedSequence p = rnn_utils::pack_padded_sequence(in[0], lengths, false, false);
    return std::get<0>(rnn_utils::pad_packed_sequence(p, true, 0.5, 5));
  };
  REQUIRE_GRADCHECK(gradcheck(round_trip, {x}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(round_trip, {x}));
  const Tensor a = randn({3, 2}, kDouble).requires_grad_(), b = randn({1, 2}, kDouble).requires_grad_();
  auto packed_data = [](const tensor_list& in) {
    return rnn_utils::pack_sequence({in[0], in[1]}).data();
  };
  REQUIRE_GRADCHECK(gradcheck(packed_data, {a, b}));
}

TEST_CASE("Bad packing arguments are errors", "[packed_sequence]") {
  const Tensor x = zeros({3, 2, 1});
  REQUIRE_THROWS_WITH(rnn_utils::pack_padded_sequence(x, tensor({1, 2})),
                      Contains("pack_padded_sequence: lengths must be sorted in decreasing order"));
  REQUIRE_THROWS_WITH(rnn_utils::pack_padded_sequence(x, tensor({2, 0})),
                      Contains("every length must be in [1, 3]"));
  REQUIRE_THROWS_WITH(rnn_utils::pack_padded_sequence(x, tensor({4, 1})),
                      Contains("every length must be in [1, 3]"));
  REQUIRE_THROWS_WITH(rnn_utils::pack_padded_sequence(x, tensor({3, 2, 1})),
                      Contains("len(lengths) to be equal to the batch size 2"));
  REQUIRE_THROWS_WITH(rnn_utils::pack_padded_sequence(x, tensor({3.0, 2.0})),
                      Contains("lengths must be a 1-D integer tensor"));
  const PackedSequence p = rnn_utils::pack_padded_sequence(x, tensor({3, 2}));
  REQUIRE_THROWS_WITH(rnn_utils::pad_packed_sequence(p, false, 0.0, 2),
                      Contains("total_length to be at least the length of the longest sequence (3)"));
  REQUIRE_THROWS_WITH(rnn_utils::pad_sequence({zeros({2, 3}), zeros({2, 4})}),
                      Contains("pad_sequence: every sequence must be (L_i, *)"));
  REQUIRE_THROWS_WITH(rnn_utils::pad_sequence({}), Contains("received an empty list"));
  REQUIRE_THROWS_WITH(PackedSequence(zeros({3}), tensor({1, 2})),
                      Contains("batch_sizes must be positive, non-increasing and sum to"));
  REQUIRE_THROWS_WITH(PackedSequence(zeros({3}), tensor({2.0, 1.0})),
                      Contains("batch_sizes must be a 1-D int64 CPU tensor"));
}

namespace {

// The reference: sequence b alone (batch of one, its own length, no packing)
// through the layer's ordinary forward from its own initial state.
template <typename RunAlone>
void check_against_alone(const Tensor& x, const std::vector<int64_t>& len,
                         const PackedSequence& packed_out, const RunAlone& run_alone,
                         const std::vector<Tensor>& finals) {
  auto [padded, lengths] = rnn_utils::pad_packed_sequence(packed_out);
  const int64_t B = x.size(1);
  for (int64_t b = 0; b < B; ++b) {
    INFO("sequence " << b);
    const int64_t l = len[static_cast<size_t>(b)];
    auto [out_b, finals_b] = run_alone(x.narrow(0, 0, l).narrow(1, b, 1), b);
    require_values(padded.narrow(0, 0, l).narrow(1, b, 1), values(out_b), 1e-12);
    if (l < padded.size(0))
      require_values(padded.narrow(0, l, padded.size(0) - l).narrow(1, b, 1).abs().sum(), {0.0});
    for (size_t i = 0; i < finals.size(); ++i)
      require_values(finals[i].narrow(1, b, 1), values(finals_b[i]), 1e-12);
  }
}

}  // namespace

TEST_CASE("LSTM over packed input equals each sequence run alone", "[packed_sequence]") {
  manual_seed(12);
  const int64_t T = 5, B = 4, in = 3, H = 4;
  const std::vector<int64_t> len = {3, 5, 1, 4};
  for (int64_t proj : {0, 2}) {
    INFO("proj_size " << proj);
    nn::LSTM lstm(nn::LSTMOptions(in, H).num_layers(2).bidirectional(true).proj_size(proj));
    lstm->to(kDouble);
    const int64_t hs = proj > 0 ? proj : H;
    const Tensor x = randn({T, B, in}, kDouble);
    const Tensor h0 = randn({4, B, hs}, kDouble), c0 = randn({4, B, H}, kDouble);
    const PackedSequence p = rnn_utils::pack_padded_sequence(x, tensor(len), false, false);
    auto [out, state] = lstm->forward_with_packed_input(p, std::make_tuple(h0, c0));
    auto [h_n, c_n] = state;
    REQUIRE(h_n.sizes() == IntArrayRef{4, B, hs});
    REQUIRE(longs(out.batch_sizes()) == longs(p.batch_sizes()));
    REQUIRE(out.sorted_indices().is_same(p.sorted_indices()));
    auto alone = [&](const Tensor& xb, int64_t b) {
      auto [o, s] = lstm(xb, std::make_tuple(h0.narrow(1, b, 1), c0.narrow(1, b, 1)));
      return std::make_tuple(o, std::vector<Tensor>{std::get<0>(s), std::get<1>(s)});
    };
    check_against_alone(x, len, out, alone, {h_n, c_n});
  }
}

TEST_CASE("GRU and RNN over packed input equal each sequence run alone", "[packed_sequence]") {
  manual_seed(13);
  const int64_t T = 4, B = 3, in = 2, H = 3;
  const std::vector<int64_t> len = {2, 4, 4};
  const Tensor x = randn({T, B, in}, kDouble);
  const PackedSequence p = rnn_utils::pack_padded_sequence(x, tensor(len), false, false);
  nn::GRU gru(nn::GRUOptions(in, H).bidirectional(true));
  nn::RNN rnn(nn::RNNOptions(in, H).num_layers(2).nonlinearity(kReLU));
  gru->to(kDouble);
  rnn->to(kDouble);
  const Tensor h0 = randn({2, B, H}, kDouble);
  auto [gru_out, gru_h] = gru->forward_with_packed_input(p, h0);
  check_against_alone(x, len, gru_out,
                      [&](const Tensor& xb, int64_t b) {
                        auto [o, h] = gru(xb, h0.narrow(1, b, 1));
                        return std::make_tuple(o, std::vector<Tensor>{h});
                      },
                      {gru_h});
  // No hx: zeros.
  auto [rnn_out, rnn_h] = rnn->forward_with_packed_input(p);
  check_against_alone(x, len, rnn_out,
                      [&](const Tensor& xb, int64_t) {
                        auto [o, h] = rnn(xb);
                        return std::make_tuple(o, std::vector<Tensor>{h});
                      },
                      {rnn_h});
}

TEST_CASE("pack -> LSTM -> pad passes gradcheck", "[packed_sequence]") {
  manual_seed(14);
  nn::LSTM lstm(nn::LSTMOptions(2, 2).bidirectional(true));
  lstm->to(kDouble);
  const Tensor x = randn({3, 3, 2}, kDouble).requires_grad_();
  const Tensor h0 = randn({2, 3, 2}, kDouble).requires_grad_();
  const Tensor c0 = randn({2, 3, 2}, kDouble).requires_grad_();
  const Tensor lengths = tensor({2, 3, 1});
  auto fn = [&](const tensor_list& in) {
    const PackedSequence p = rnn_utils::pack_padded_sequence(in[0], lengths, false, false);
    auto [out, state] = lstm->forward_with_packed_input(p, std::make_tuple(in[1], in[2]));
    const Tensor padded = std::get<0>(rnn_utils::pad_packed_sequence(out));
    return cat({padded.flatten(), std::get<0>(state).flatten(), std::get<1>(state).flatten()});
  };
  tensor_list inputs = {x, h0, c0};
  for (const Tensor& w : lstm->parameters()) inputs.push_back(w);
  REQUIRE_GRADCHECK(gradcheck(fn, inputs));
}

TEST_CASE("Bad packed input to a recurrent layer is an error", "[packed_sequence]") {
  nn::LSTM lstm(3, 2);
  const PackedSequence p = rnn_utils::pack_sequence({zeros({2, 3}), zeros({1, 3})});
  REQUIRE_THROWS_WITH(lstm->forward_with_packed_input(
                          rnn_utils::pack_sequence({zeros({2, 4}), zeros({1, 4})})),
                      Contains("LSTM: expected packed data of shape (sum of lengths, input_size = 3)"));
  REQUIRE_THROWS_WITH(lstm->forward_with_packed_input(p, std::make_tuple(zeros({1, 3, 2}),
                                                                           zeros({1, 2, 2}))),
                      Contains("LSTM: expected hx of shape [1, 2, 2] for a packed batch of 2"));
  REQUIRE_THROWS_WITH(lstm->forward_with_packed_input(p.to(kDouble)),
                      Contains("LSTM: packed data is float64 on cpu but the parameters are float32"));
}
