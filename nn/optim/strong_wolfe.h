#pragma once
// The strong-Wolfe line search of L-BFGS (Nocedal & Wright, Numerical
// Optimization, 2nd ed., Algorithms 3.5 and 3.6, with cubic interpolation):
// along a descent direction d it looks for a step t whose loss has fallen
// enough (f(t) <= f(0) + c1 t f'(0)) and whose slope has flattened enough
// (|f'(t)| <= c2 |f'(0)|).
#include <cstdint>
#include <functional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember::optim::detail {

// A point tried along d: step t, loss f, flat gradient g, slope gtd = g . d.
struct LinePoint {
  double t = 0;
  double f = 0;
  Tensor g;
  double gtd = 0;
};

// The loss and flat gradient at step t along d.
using LineEvaluator = std::function<std::pair<double, Tensor>(double t)>;

struct LineSearchResult {
  LinePoint point;          // the step taken (t = 0 when nothing better was found)
  int64_t evaluations = 0;  // calls of the evaluator
};

// start is the point at t = 0; t the first step to try.
LineSearchResult strong_wolfe(const LineEvaluator& evaluate, const Tensor& d,
                              const LinePoint& start, double t, double tolerance_change,
                              double c1 = 1e-4, double c2 = 0.9, int max_evaluations = 25);

// The minimizer of the cubic that matches the losses and slopes of a and b,
// clamped to [lo, hi]; the middle of [lo, hi] when the cubic has no minimum.
double cubic_minimizer(const LinePoint& a, const LinePoint& b, double lo, double hi);

}  // namespace ember::optim::detail
