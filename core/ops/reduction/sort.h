#pragma once
// Sorting and selection along a dim. The order puts NaN after +inf (first
// when descending) and is always stable: equal elements keep their input
// order, whatever `stable` says. Indices are int64 positions along the dim;
// values are self.gather(dim, indices), so their gradient (and its
// derivative) is gather's.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false);
// sort along dim 0, values only.
Tensor msort(const Tensor& self);
// The k largest (smallest when !largest) elements along dim, in order when
// `sorted`. Among equal elements the first ones in the input are taken.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);
// The k-th smallest element along dim (k counts from 1); of equal elements,
// the one a stable sort puts at position k.
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
// The lower median of all elements (NaN if any is NaN, or if self is empty).
Tensor median(const Tensor& self);
// The lower median along dim; a row holding NaN gives NaN at its first NaN.
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);

}  // namespace ember
