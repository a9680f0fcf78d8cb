#pragma once
// Reduction maths shared by the CPU loops (kernels/cpu/reduce_loops.h) and the CUDA
// kernels. An Ops type says how In values reduce into an accumulator Acc and
// how the accumulator becomes the output:
//   identity()      the result of reducing nothing
//   step(acc, v)    acc with one more input element folded in
//   combine(a, b)   two partial results (from lanes, blocks or threads)
//   project(acc)    the output value
// Ops that pick an element (ArgMax, ArgMin) instead say whether a candidate
// beats the current best, so that ties keep the first index.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/wrapping.h"

namespace ember::functors {

// Floating sums accumulate in double (a 1e6-element float32 sum keeps ~1e-7
// relative accuracy); integer and bool sums in int64, wrapping on overflow, as PyTorch.
template <typename T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <typename T>
EMBER_HOST_DEVICE bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

template <typename In, typename Acc, typename Out>
struct SumOps {
  EMBER_HOST_DEVICE Acc identity() const { return Acc(0); }
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const { return wrapping_add(a, static_cast<Acc>(v)); }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return wrapping_add(a, b); }
  EMBER_HOST_DEVICE Out project(Acc a) const { return static_cast<Out>(a); }
};

// Products accumulate as sums do (double for floating, int64 for integer and
// bool, wrapping).
template <typename In, typename Acc, typename Out>
struct ProdOps {
  EMBER_HOST_DEVICE Acc identity() const { return Acc(1); }
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const { return wrapping_mul(a, static_cast<Acc>(v)); }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return wrapping_mul(a, b); }
  EMBER_HOST_DEVICE Out project(Acc a) const { return static_cast<Out>(a); }
};

// Sum divided by the count of reduced elements (0 / 0 = nan for an empty mean).
template <typename In, typename Acc, typename Out>
struct MeanOps : SumOps<In, Acc, Out> {
  Acc count;
  EMBER_HOST_DEVICE Out project(Acc a) const { return static_cast<Out>(a / count); }
};

// Sum of squares of deviations (x - mean) divided by `divisor` (n - correction);
// the square root of it when `take_sqrt` (std).
template <typename In, typename Acc, typename Out>
struct VarOps {
  Acc divisor;
  bool take_sqrt;
  EMBER_HOST_DEVICE Acc identity() const { return Acc(0); }
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return a + static_cast<Acc>(v) * static_cast<Acc>(v);
  }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return a + b; }
  EMBER_HOST_DEVICE Out project(Acc a) const {
    const Acc v = a / divisor;
    return static_cast<Out>(take_sqrt ? std::sqrt(v) : v);
  }
};

// p-norms: (sum |x|^p)^(1/p), with the common p = 1 and p = 2 free of pow().
template <typename In, typename Acc, typename Out>
struct Norm1Ops : SumOps<In, Acc, Out> {
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const { return a + std::abs(static_cast<Acc>(v)); }
};
template <typename In, typename Acc, typename Out>
struct Norm2Ops : SumOps<In, Acc, Out> {
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return a + static_cast<Acc>(v) * static_cast<Acc>(v);
  }
  EMBER_HOST_DEVICE Out project(Acc a) const { return static_cast<Out>(std::sqrt(a)); }
};
template <typename In, typename Acc, typename Out>
struct NormPOps : SumOps<In, Acc, Out> {
  Acc p;
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return a + std::pow(std::abs(static_cast<Acc>(v)), p);
  }
  EMBER_HOST_DEVICE Out project(Acc a) const { return static_cast<Out>(std::pow(a, Acc(1) / p)); }
};

// The sums behind a p-norm without its root, and the largest |x| (the inf
// norm), each in Acc: clip_grad_norm_'s per-gradient parts on CUDA
// (kernels/cuda/reduce.h, abs_pow_sum_kernel; the CPU's twin is
// cpu::abs_pow_sum). Norm1Ops is the p = 1 sum.
template <typename In, typename Acc, typename Out>
struct SquareSumOps : SumOps<In, Acc, Out> {
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return a + static_cast<Acc>(v) * static_cast<Acc>(v);
  }
};
template <typename In, typename Acc, typename Out>
struct AbsPowSumOps : SumOps<In, Acc, Out> {
  Acc p;
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return a + std::pow(std::abs(static_cast<Acc>(v)), p);
  }
};
// NaN sticks, as MaxOps.
template <typename In, typename Acc>
struct AbsMaxOps {
  EMBER_HOST_DEVICE Acc identity() const { return Acc(0); }
  EMBER_HOST_DEVICE Acc step(Acc a, In v) const {
    return combine(a, std::abs(static_cast<Acc>(v)));
  }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return (b > a || is_nan(b)) ? b : a; }
  EMBER_HOST_DEVICE Acc project(Acc a) const { return a; }
};

// max / min propagate NaN, as torch.max: once the accumulator is NaN it stays.
template <typename T>
struct MaxOps {
  EMBER_HOST_DEVICE T identity() const {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  EMBER_HOST_DEVICE T step(T a, T v) const { return (v > a || is_nan(v)) ? v : a; }
  EMBER_HOST_DEVICE T combine(T a, T b) const { return step(a, b); }
  EMBER_HOST_DEVICE T project(T a) const { return a; }
};
template <typename T>
struct MinOps {
  EMBER_HOST_DEVICE T identity() const {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  EMBER_HOST_DEVICE T step(T a, T v) const { return (v < a || is_nan(v)) ? v : a; }
  EMBER_HOST_DEVICE T combine(T a, T b) const { return step(a, b); }
  EMBER_HOST_DEVICE T project(T a) const { return a; }
};

// all / any: nonzero elements (NaN counts as nonzero).
template <typename In>
struct AllOps {
  EMBER_HOST_DEVICE bool identity() const { return true; }
  EMBER_HOST_DEVICE bool step(bool a, In v) const { return a & (v != In(0)); }
  EMBER_HOST_DEVICE bool combine(bool a, bool b) const { return a & b; }
  EMBER_HOST_DEVICE bool project(bool a) const { return a; }
};
template <typename In>
struct AnyOps {
  EMBER_HOST_DEVICE bool identity() const { return false; }
  EMBER_HOST_DEVICE bool step(bool a, In v) const { return a | (v != In(0)); }
  EMBER_HOST_DEVICE bool combine(bool a, bool b) const { return a | b; }
  EMBER_HOST_DEVICE bool project(bool a) const { return a; }
};

// Strictly better only, so the first of equal values wins; the first NaN wins
// over every number (torch.argmax on NaN).
template <typename T>
struct ArgMaxOps {
  EMBER_HOST_DEVICE bool better(T candidate, T best) const {
    return candidate > best || (is_nan(candidate) && !is_nan(best));
  }
};
template <typename T>
struct ArgMinOps {
  EMBER_HOST_DEVICE bool better(T candidate, T best) const {
    return candidate < best || (is_nan(candidate) && !is_nan(best));
  }
};

// The best element seen so far and its index along the reduction (index -1:
// none yet), for reductions that fold elements with their indices (the CUDA
// max/min/argmax/argmin along a dim).
template <typename T>
struct ArgAcc {
  T value;
  int64_t index;
};

// Folds (value, index) pairs with an ArgMaxOps / ArgMinOps: step_at sees one
// thread's elements in increasing index order, so only a strictly better value
// replaces the best (ties keep the first); combine merges two partial results,
// preferring the smaller index among equal values (two NaNs are equal).
template <typename T, typename Better>
struct ArgFoldOps {
  Better ops;
  EMBER_HOST_DEVICE ArgAcc<T> identity() const { return {T(), -1}; }
  EMBER_HOST_DEVICE ArgAcc<T> step_at(ArgAcc<T> a, T v, int64_t index) const {
    return (a.index < 0 || ops.better(v, a.value)) ? ArgAcc<T>{v, index} : a;
  }
  EMBER_HOST_DEVICE ArgAcc<T> combine(ArgAcc<T> a, ArgAcc<T> b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    if (ops.better(b.value, a.value)) return b;
    if (ops.better(a.value, b.value)) return a;
    return b.index < a.index ? b : a;
  }
  EMBER_HOST_DEVICE ArgAcc<T> project(ArgAcc<T> a) const { return a; }
};

// The amount a softmax, log_softmax or cross-entropy line subtracts before
// exp(): its maximum, as it is, so exp() never overflows. A line holding
// +inf, or only -inf, then gives NaN (inf - inf), as PyTorch.
template <typename T>
EMBER_HOST_DEVICE double softmax_shift(T max) {
  return static_cast<double>(max);
}

// logsumexp's shift: the maximum, or 0 when that is infinite, so that a line
// holding +inf sums to +inf and a line of -inf only to -inf (as PyTorch's
// logsumexp). NaN stays NaN.
EMBER_HOST_DEVICE double logsumexp_shift(double max) {
  const double finite = std::numeric_limits<double>::max();
  return (max > finite || max < -finite) ? 0.0 : max;
}

}  // namespace ember::functors
