#include "ember/nn/optim/strong_wolfe.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ember/core/ops/reduction/reduce.h"

namespace ember::optim::detail {

double cubic_minimizer(const LinePoint& a, const LinePoint& b, double lo, double hi) {
  // Nocedal & Wright eq. (3.59), with `left` and `right` ordered by t.
  const LinePoint& left = a.t <= b.t ? a : b;
  const LinePoint& right = a.t <= b.t ? b : a;
  const double d1 = a.gtd + b.gtd - 3 * (a.f - b.f) / (a.t - b.t);
  const double d2_squared = d1 * d1 - a.gtd * b.gtd;
  if (!(d2_squared >= 0)) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_squared);
  const double t =
      right.t - (right.t - left.t) * (right.gtd + d2 - d1) / (right.gtd - left.gtd + 2 * d2);
  if (!std::isfinite(t)) return (lo + hi) / 2;
  return std::clamp(t, lo, hi);
}

LineSearchResult strong_wolfe(const LineEvaluator& evaluate, const Tensor& d,
                              const LinePoint& start, double t, double tolerance_change, double c1,
                              double c2, int max_evaluations) {
  const double d_max = d.abs().max().item<double>();
  int64_t evaluations = 0;
  auto try_step = [&](double step) {
    auto [f, g] = evaluate(step);
    ++evaluations;
    const double gtd = g.dot(d).item<double>();
    return LinePoint{step, f, std::move(g), gtd};
  };
  auto decreased_enough = [&](const LinePoint& p) { return p.f <= start.f + c1 * p.t * start.gtd; };
  auto flat_enough = [&](const LinePoint& p) { return std::abs(p.gtd) <= -c2 * start.gtd; };

  // Bracketing (Algorithm 3.5): extrapolate until [prev, cur] holds an acceptable step.
  LinePoint prev = start;
  LinePoint cur = try_step(t);
  int extrapolations = 0;
  std::optional<std::pair<LinePoint, LinePoint>> bracket;
  while (extrapolations < max_evaluations) {
    if (!decreased_enough(cur) || (extrapolations > 1 && cur.f >= prev.f)) {
      bracket = {prev, cur};
      break;
    }
    if (flat_enough(cur)) return {cur, evaluations};
    if (cur.gtd >= 0) {
      bracket = {prev, cur};
      break;
    }
    const double next = cubic_minimizer(prev, cur, cur.t + 0.01 * (cur.t - prev.t), cur.t * 10);
    prev = std::move(cur);
    cur = try_step(next);
    ++extrapolations;
  }
  if (!bracket) bracket = {start, cur};  // out of evaluations

  // Zoom (Algorithm 3.6): shrink the bracket; `low` is the end with the lower loss.
  LinePoint low = std::move(bracket->first), high = std::move(bracket->second);
  if (high.f < low.f) std::swap(low, high);
  bool little_progress = false;
  int tries = extrapolations;
  while (tries < max_evaluations) {
    if (std::abs(high.t - low.t) * d_max < tolerance_change) break;
    const double a = std::min(low.t, high.t), b = std::max(low.t, high.t);
    double step = cubic_minimizer(low, high, a, b);
    // A step too close to an end makes little progress; twice in a row (or at
    // an end), move it a tenth of the bracket inside.
    const double margin = 0.1 * (b - a);
    if (std::min(b - step, step - a) < margin) {
      if (little_progress || step >= b || step <= a) {
        step = std::abs(step - b) < std::abs(step - a) ? b - margin : a + margin;
        little_progress = false;
      } else {
        little_progress = true;
      }
    } else {
      little_progress = false;
    }
    LinePoint p = try_step(step);
    ++tries;
    if (!decreased_enough(p) || p.f >= low.f) {
      high = std::move(p);
      if (high.f < low.f) std::swap(low, high);
    } else {
      if (flat_enough(p)) return {p, evaluations};
      if (p.gtd * (high.t - low.t) >= 0) high = low;
      low = std::move(p);
    }
  }
  return {low, evaluations};
}

}  // namespace ember::optim::detail
