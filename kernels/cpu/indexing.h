#pragma once
// CPU kernels of the indexing ops. Shapes and index values are checked by the
// ops (core/ops/indexing.cpp) before these run; tensors may be strided.
#include <optional>

#include "ember/core/tensor.h"
#include "ember/kernels/common/scatter_functors.h"

namespace ember::cpu {

// The first value of the int64 `index` outside [0, size), if any.
std::optional<int64_t> find_out_of_range(const Tensor& index, int64_t size);

// out[p] = self[p with p[dim] replaced by index[p]] for every position p of
// index; out has index's shape (dims >= 1).
void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);

// self[p with p[dim] replaced by index[p]] += src[p] for every position p of
// index (src at least as large as index in every dim; dims >= 1).
void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);

// self[p with p[dim] replaced by index[p]] = src[p] (any dtype); where
// positions repeat, one of the writes lands.
void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);

// self[p with p[dim] replaced by index[p]] = op(that, src[p]): scatter_reduce's
// "prod", "amax", "amin" (int64, float32, float64).
void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    functors::ScatterReduce op);

// out = self with whole slices along dim picked by the 1-d `index`. out is
// contiguous, with self's shape except index.numel() at dim.
void index_select(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);

}  // namespace ember::cpu
