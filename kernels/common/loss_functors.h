#pragma once
// Elementwise maths of the binary cross-entropy losses, shared by the CPU
// loops and (later) the CUDA kernels. T: float or double.
#include <math.h>

#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/unary_functors.h"

namespace ember::functors {

namespace loss_math {

template <typename T>
EMBER_HOST_DEVICE T log1p(T x) {
  if constexpr (std::is_same_v<T, float>)
    return ::log1pf(x);
  else
    return ::log1p(x);
}

// log(1 + exp(-x)) without overflow: exp() only ever sees -|x| <= 0.
template <typename T>
EMBER_HOST_DEVICE T softplus_neg(T x) {
  return log1p(math::exp(-math::fabs(x))) + (x < T(0) ? -x : T(0));
}

// max(log(x), -100): PyTorch's clamp, so that x = 0 gives a finite loss.
template <typename T>
EMBER_HOST_DEVICE T clamped_log(T x) {
  const T l = math::log(x);
  return l > T(-100) ? l : T(-100);
}

}  // namespace loss_math

// log(sigmoid(x)) = -log(1 + exp(-x)), finite for every finite x.
template <typename T>
struct LogSigmoid {
  EMBER_HOST_DEVICE T operator()(T x) const { return -loss_math::softplus_neg(x); }
};

// -(y * log(x) + (1 - y) * log(1 - x)) with each log clamped to >= -100.
template <typename T>
struct BinaryCrossEntropy {
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    return -(y * loss_math::clamped_log(x) + (T(1) - y) * loss_math::clamped_log(T(1) - x));
  }
};

// -(pw * y * log(sigmoid(x)) + (1 - y) * log(sigmoid(-x))), rewritten with
// log(sigmoid(-x)) = log(sigmoid(x)) - x as
//   (1 - y) * x + (1 + (pw - 1) * y) * log(1 + exp(-x)).
template <typename T>
struct BinaryCrossEntropyWithLogits {
  EMBER_HOST_DEVICE T operator()(T x, T y, T pos_weight) const {
    return (T(1) - y) * x + (T(1) + (pos_weight - T(1)) * y) * loss_math::softplus_neg(x);
  }
};

}  // namespace ember::functors

// This file's rows of the elementwise op tables (Note [Elementwise op
// tables], kernels/common/elementwise_ops.h), next to their functors.

// out = f(inputs...), all of a floating dtype T.   X(name, number of inputs, functor)
#define EMBER_LOSS_ROWS(X)                                          \
  X(LogSigmoid, 1, LogSigmoid<T>{})                                      \
  X(BinaryCrossEntropy, 2, BinaryCrossEntropy<T>{})                      \
  X(BinaryCrossEntropyWithLogits, 3, BinaryCrossEntropyWithLogits<T>{})
