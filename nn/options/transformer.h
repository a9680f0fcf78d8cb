#pragma once
// Options of TransformerEncoderLayer, as libtorch 1.13's.
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/nn/init.h"
#include "ember/nn/options/arg.h"

namespace ember::nn {

// The feed-forward block's activation: kReLU, kGELU, or any Tensor -> Tensor function.
class TransformerActivation {
 public:
  TransformerActivation(Nonlinearity kind);                          // NOLINT: as libtorch
  TransformerActivation(std::function<Tensor(const Tensor&)> fn);   // NOLINT
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<Tensor, F, const Tensor&>>>
  TransformerActivation(F fn)  // NOLINT: a lambda, as libtorch's variant takes it
      : TransformerActivation(std::function<Tensor(const Tensor&)>(std::move(fn))) {}
  Tensor operator()(const Tensor& x) const { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

// Post-norm, sequence-first (S, N, d_model), as libtorch 1.13.
struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = kReLU;
};

// TransformerEncoderOptions is in modules/transformer.h: it holds a layer.

}  // namespace ember::nn
