// ctc_loss (nn/functional/ctc_loss.cpp) against the probability summed over
// every alignment by brute force (all C^T paths collapsed here), every
// reduction, zero_infinity, both target layouts, gradients and errors.
#include <ember/nn/functional/ctc_loss.h>
#include <ember/nn/modules/ctc_loss.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "test_helpers.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

// -log of the summed probability of the paths of length frames (over the
// first `frames` rows of lp, (T, C) row-major with row stride c) that collapse
// (merge repeats, then drop blanks) to target.
double brute_force_ctc(const std::vector<double>& lp, int64_t frames, int64_t c,
                       const std::vector<int64_t>& target, int64_t blank) {
  std::vector<int64_t> path(frames, 0);
  double total = 0;
  while (true) {
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < frames; ++t)
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    if (collapsed == target) {
      double logp = 0;
      for (int64_t t = 0; t < frames; ++t) logp += lp[t * c + path[t]];
      total += std::exp(logp);
    }
    int64_t k = 0;  // next path, as a base-c counter
    while (k < frames && ++path[k] == c) path[k++] = 0;
    if (k == frames) break;
  }
  return -std::log(total);
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

// Sample n's rows of lp (T, N, C) as a (T, C) row-major list.
std::vector<double> sample_rows(const Tensor& lp, int64_t n) { return values(lp.select(1, n)); }

}  // namespace

TEST_CASE("ctc_loss equals -log of the probability summed over all alignments", "[loss_extra]") {
  manual_seed(50);
  const int64_t frames = 5, c = 4;
  const Tensor lp = log_softmax(randn({frames, 3, c}, kDouble), 2);
  const std::vector<std::vector<int64_t>> targets = {{1, 2}, {3, 3}, {}};
  const Tensor in_len = tensor({5, 4, 3}), tgt_len = tensor({2, 2, 0});
  const Tensor padded = tensor({{1, 2, 0}, {3, 3, 0}, {0, 0, 0}});
  const Tensor concatenated = tensor({1, 2, 3, 3});
  std::vector<double> want;
  for (int64_t n = 0; n < 3; ++n)
    want.push_back(brute_force_ctc(sample_rows(lp, n), values(in_len)[n], c, targets[n], 0));
  for (const Tensor& t : {padded, concatenated}) {
    require_values(F::ctc_loss(lp, t, in_len, tgt_len, F::CTCLossFuncOptions().reduction(kNone)),
                   want, 1e-10);
    require_values(F::ctc_loss(lp, t, in_len, tgt_len, F::CTCLossFuncOptions().reduction(kSum)),
                   {want[0] + want[1] + want[2]}, 1e-10);
    // kMean: each loss over its target length (at least 1), then the batch mean.
    require_values(F::ctc_loss(lp, t, in_len, tgt_len),
                   {(want[0] / 2 + want[1] / 2 + want[2] / 1) / 3}, 1e-10);
  }
}

TEST_CASE("ctc_loss with a non-zero blank and an unbatched (T, C) input", "[loss_extra]") {
  manual_seed(51);
  const Tensor lp = log_softmax(randn({4, 3}, kDouble), 1);
  const double want = brute_force_ctc(values(lp), 4, 3, {0, 1}, 2);
  const Tensor got = F::ctc_loss(lp, tensor({0, 1}), tensor(int64_t{4}), tensor(int64_t{2}),
                                 F::CTCLossFuncOptions().blank(2).reduction(kNone));
  REQUIRE(got.dim() == 0);
  require_values(got, {want}, 1e-10);
}

TEST_CASE("ctc_loss is inf for an impossible target; zero_infinity makes it and its gradient 0",
          "[loss_extra]") {
  // Three 1s need five frames (1 b 1 b 1); three frames cannot hold them.
  const Tensor lp = leaf(log_softmax(zeros({3, 1, 2}, kDouble), 2));
  const Tensor t = tensor({{1, 1, 1}}), in_len = tensor({3}), tgt_len = tensor({3});
  const Tensor inf_loss =
      F::ctc_loss(lp, t, in_len, tgt_len, F::CTCLossFuncOptions().reduction(kSum));
  REQUIRE(std::isinf(inf_loss.item<double>()));
  const Tensor zero = F::ctc_loss(lp, t, in_len, tgt_len,
                                  F::CTCLossFuncOptions().reduction(kSum).zero_infinity(true));
  require_values(zero, {0.0});
  zero.backward();
  require_values(lp.grad(), std::vector<double>(6, 0.0));
}

TEST_CASE("ctc_loss gradients pass gradcheck and gradgradcheck, raw and through log_softmax",
          "[loss_extra]") {
  manual_seed(52);
  const Tensor x = leaf(randn({4, 2, 3}, kDouble));
  const Tensor t = tensor({{1, 2}, {1, 0}}), in_len = tensor({4, 3}), tgt_len = tensor({2, 1});
  auto raw = [&](const tensor_list& in) { return F::ctc_loss(in[0], t, in_len, tgt_len); };
  auto through_softmax = [&](const tensor_list& in) {
    return F::ctc_loss(log_softmax(in[0], 2), t, in_len, tgt_len,
                       F::CTCLossFuncOptions().reduction(kNone));
  };
  const Tensor lp = leaf(log_softmax(x, 2));
  REQUIRE_GRADCHECK(gradcheck(raw, {lp}));
  REQUIRE_GRADCHECK(gradcheck(through_softmax, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(through_softmax, {x}));
}

TEST_CASE("ctc_loss rejects bad shapes, lengths, blank and labels with messages", "[loss_extra]") {
  const Tensor lp = zeros({4, 2, 3}, kDouble);
  const Tensor t = tensor({{1, 2}, {1, 0}}), in_len = tensor({4, 3}), tgt_len = tensor({2, 1});
  REQUIRE_THROWS_WITH(F::ctc_loss(zeros({4}, kDouble), t, in_len, tgt_len),
                      Catch::Contains("ctc_loss: expected log_probs of shape (T, N, C)"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, t, tensor({5, 3}), tgt_len),
                      Catch::Contains("ctc_loss: input_lengths[0] = 5 is not in [0, 4]"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, t, in_len, tensor({3, 1})),
                      Catch::Contains("ctc_loss: expected targets of shape (2, >= 3), got [2, 2]"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, t, in_len, tgt_len, F::CTCLossFuncOptions().blank(3)),
                      Catch::Contains("ctc_loss: blank 3 is not a class of 3"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, tensor({{1, 5}, {1, 0}}), in_len, tgt_len),
                      Catch::Contains("ctc_loss: target 5 is not a class of 3 (sample 0)"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, t.to(kDouble), in_len, tgt_len),
                      Catch::Contains("ctc_loss: expected int64 targets and lengths, got float64"));
  REQUIRE_THROWS_WITH(F::ctc_loss(lp, t, tensor({4}), tgt_len),
                      Catch::Contains("expected 2 input_lengths and target_lengths"));
}

TEST_CASE("CTCLoss forwards to ctc_loss with its options", "[loss_extra]") {
  manual_seed(53);
  const Tensor lp = log_softmax(randn({4, 2, 3}, kDouble), 2);
  const Tensor t = tensor({{1, 2}, {1, 0}}), in_len = tensor({4, 3}), tgt_len = tensor({2, 1});
  const auto opts = nn::CTCLossOptions().blank(0).reduction(kSum);
  require_values(nn::CTCLoss(opts)(lp, t, in_len, tgt_len),
                 values(F::ctc_loss(lp, t, in_len, tgt_len, opts)), 0);
  std::ostringstream os;
  os << nn::CTCLoss();
  REQUIRE(os.str() == "CTCLoss()");
}
