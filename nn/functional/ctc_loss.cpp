// ctc_loss composed of ember ops: the forward (alpha) recursion of Graves et
// al. (2006) in log space, one step per time frame, over the targets extended
// with blanks (blank, l1, blank, l2, ..., blank). Autograd then gives the
// gradient (what the beta recursion computes) and its derivative, on any device.
#include "ember/nn/functional/ctc_loss.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/core/autocast.h"
#include "ember/core/error.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/elementwise/pointwise_extras.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"

namespace ember::nn::functional {

namespace {

constexpr double kNegInf = -INFINITY;

// log(sum_i exp(terms[i])) elementwise; -inf where every term is -inf, with a
// zero gradient there (a plain logsumexp would give 0 * inf = NaN).
Tensor log_sum_exp(const std::vector<Tensor>& terms) {
  Tensor m = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) m = maximum(m, terms[i]);
  m = m.detach();
  m = where(isinf(m), 0.0, m);
  Tensor s = exp(terms[0] - m);
  for (size_t i = 1; i < terms.size(); ++i) s = s + exp(terms[i] - m);
  const Tensor reached = s > 0;
  return where(reached, log(where(reached, s, 1.0)) + m, kNegInf);
}

// alpha shifted right by k states along dim 1, -inf coming in.
Tensor shift(const Tensor& alpha, int64_t k) {
  const int64_t n = alpha.size(0), states = alpha.size(1);
  const Tensor fill = full({n, std::min(k, states)}, kNegInf, alpha.options());
  if (k >= states) return fill;
  return cat({fill, alpha.narrow(1, 0, states - k)}, 1);
}

std::vector<int64_t> host_longs(const Tensor& t) {
  const Tensor c = t.to(kCPU).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs_in, const Tensor& targets_in, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&log_probs_in}))
    return ctc_loss(autocast::cast(log_probs_in, *to), targets_in, input_lengths, target_lengths, options);
  const char* op = "ctc_loss";
  EMBER_CHECK(log_probs_in.defined() && targets_in.defined() && input_lengths.defined() &&
                  target_lengths.defined(),
              op, ": log_probs, targets, input_lengths and target_lengths must be defined");
  EMBER_CHECK(log_probs_in.is_floating_point(), op, ": expected floating point log_probs, got ",
              log_probs_in.scalar_type());
  EMBER_CHECK(log_probs_in.dim() == 3 || log_probs_in.dim() == 2, op,
              ": expected log_probs of shape (T, N, C) or (T, C), got ", log_probs_in.sizes());
  for (const Tensor* t : {&targets_in, &input_lengths, &target_lengths})
    EMBER_CHECK(t->scalar_type() == kLong, op, ": expected int64 targets and lengths, got ",
                t->scalar_type());
  EMBER_CHECK(targets_in.device() == log_probs_in.device(), op,
              ": expected targets on the device of log_probs, got ", targets_in.toString(), " and ",
              log_probs_in.toString());
  const bool batched = log_probs_in.dim() == 3;
  // An unbatched (T, C) input is one sample: targets (S), 0-d lengths.
  const Tensor log_probs = batched ? log_probs_in : log_probs_in.unsqueeze(1);
  const Tensor targets = batched ? targets_in : targets_in.unsqueeze(0);
  const int64_t frames = log_probs.size(0), n = log_probs.size(1), classes = log_probs.size(2);
  const int64_t blank = options.blank();
  EMBER_CHECK(blank >= 0 && blank < classes, op, ": blank ", blank, " is not a class of ", classes);
  const std::vector<int64_t> in_len = host_longs(input_lengths),
                             tgt_len = host_longs(target_lengths);
  EMBER_CHECK(static_cast<int64_t>(in_len.size()) == n && static_cast<int64_t>(tgt_len.size()) == n,
              op, ": expected ", n, " input_lengths and target_lengths, got shapes ",
              input_lengths.sizes(), " and ", target_lengths.sizes());
  EMBER_CHECK(targets.dim() <= 2, op,
              ": expected targets of shape (N, S) or (sum of target_lengths), got ",
              targets_in.sizes());
  const std::vector<int64_t> labels = host_longs(targets);
  int64_t max_len = 0, total = 0;
  for (int64_t b = 0; b < n; ++b) {
    EMBER_CHECK(in_len[b] >= 0 && in_len[b] <= frames, op, ": input_lengths[", b, "] = ", in_len[b],
                " is not in [0, ", frames, "]");
    EMBER_CHECK(tgt_len[b] >= 0, op, ": target_lengths[", b, "] = ", tgt_len[b], " is negative");
    max_len = std::max(max_len, tgt_len[b]);
    total += tgt_len[b];
  }
  const bool padded = targets.dim() == 2;
  if (padded)
    EMBER_CHECK(targets.size(0) == n && max_len <= targets.size(1), op,
                ": expected targets of shape (", n, ", >= ", max_len, "), got ", targets.sizes());
  else
    EMBER_CHECK(total <= targets.numel(), op, ": target_lengths sum to ", total,
                " but targets has ", targets.numel(), " elements");

  // ext[b, s]: the extended target; skip[b, s]: state s may be entered from s - 2.
  const int64_t states = 2 * max_len + 1;
  std::vector<int64_t> ext(n * states, blank), ends(2 * n);
  std::vector<double> skip(n * states, 0), start(n * states, kNegInf);  // as 0/1 and log values
  for (int64_t b = 0, offset = 0; b < n; ++b) {
    const int64_t* row = labels.data() + (padded ? b * targets.size(1) : offset);
    for (int64_t k = 0; k < tgt_len[b]; ++k) {
      EMBER_CHECK(row[k] >= 0 && row[k] < classes, op, ": target ", row[k], " is not a class of ",
                  classes, " (sample ", b, ")");
      ext[b * states + 2 * k + 1] = row[k];
      if (k > 0 && row[k] != row[k - 1]) skip[b * states + 2 * k + 1] = 1;
    }
    start[b * states] = 0;
    ends[2 * b] = 2 * tgt_len[b];
    ends[2 * b + 1] = std::max<int64_t>(2 * tgt_len[b] - 1, 0);
    offset += tgt_len[b];
  }
  const TensorOptions longs = targets.options(), values = log_probs.options();
  const Tensor ext_t = tensor(ext, longs).reshape({n, states});
  const Tensor skip_t = tensor(skip, kDouble).reshape({n, states}).to(log_probs.device()) > 0;
  const Tensor lengths = tensor(in_len, longs).reshape({n, 1});

  // lp[t, b, s] = log_probs[t, b, ext[b, s]].
  const Tensor lp = gather(log_probs, 2, ext_t.unsqueeze(0).expand({frames, n, states}));
  // alpha before the first frame: all mass in state 0.
  Tensor alpha = tensor(start, kDouble).to(values).reshape({n, states});
  for (int64_t t = 0; t < frames; ++t) {
    const Tensor next = lp.select(0, t) + log_sum_exp({alpha, shift(alpha, 1),
                                                       where(skip_t, shift(alpha, 2), kNegInf)});
    alpha = where(lengths > t, next, alpha);  // a sample past its input length keeps its alpha
  }
  const Tensor end_t = tensor(ends, longs).reshape({n, 2});
  const Tensor has_label = tensor(tgt_len, longs) > 0;
  const Tensor last = gather(alpha, 1, end_t);  // (N, 2): states 2 l and 2 l - 1
  Tensor loss = -log_sum_exp({last.select(1, 0), where(has_label, last.select(1, 1), kNegInf)});
  if (options.zero_infinity()) loss = where(isinf(loss), 0.0, loss);
  switch (options.reduction()) {
    case Reduction::None:
      return batched ? loss : loss.reshape({});
    case Reduction::Sum:
      return loss.sum();
    case Reduction::Mean: {  // each loss over its target length (at least 1)
      std::vector<double> divisor(tgt_len.begin(), tgt_len.end());
      for (double& d : divisor) d = std::max(d, 1.0);
      return (loss / tensor(divisor, kDouble).to(values)).mean();
    }
  }
  EMBER_ERROR(op, ": unknown reduction ", static_cast<int>(options.reduction()));
}

}  // namespace ember::nn::functional
