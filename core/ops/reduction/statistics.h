#pragma once
// Statistics: variance/standard deviation with the mean in one call, running
// maxima and minima with their indices, and the running log-sum-exp.
#include <tuple>
#include <type_traits>

#include "ember/core/tensor.h"

namespace ember {

// (var, mean) and (std, mean) over dims (all when empty), floating inputs only.
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false);
// Over all elements. unbiased must be a bool: an integer (or {1}) names a
// dim, as libtorch.
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, Bool unbiased) {
  return var_mean(x, IntArrayRef{}, unbiased);
}
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, Bool unbiased) {
  return std_mean(x, IntArrayRef{}, unbiased);
}
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& x) { return var_mean(x, IntArrayRef{}); }
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& x) { return std_mean(x, IntArrayRef{}); }

// (values, indices) of the running maximum / minimum along dim: a NaN is kept
// once seen, ties take the later index, as torch.cummax. The gradient of
// values goes to the element each index names.
std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
// log(exp(x_0) + ... + exp(x_i)) along dim, without overflow; floating only.
Tensor logcumsumexp(const Tensor& x, int64_t dim);

}  // namespace ember
