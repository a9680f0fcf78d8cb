#pragma once
// scatter (from a tensor or a scalar) and scatter_reduce; scatter_add is in
// core/ops/indexing/indexing.h. The in-place forms are Tensor methods (core/tensor.h).
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// self with self[p with p[dim] = index[p]] = src[p] for each position p of
// index. Where positions repeat, one of the writes lands (unspecified which).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// self with src reduced into it at the indices: reduce is "sum", "prod",
// "mean", "amax" or "amin"; include_self = false leaves self's values out at
// the positions that receive any src. Every reduce has a gradient.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);

}  // namespace ember
