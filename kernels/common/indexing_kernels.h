#pragma once
// The indexing kernel family (Note [Kernel tables]): gather, index_select,
// scatter_add, scatter and scatter_reduce by an int64 index along one dim,
// one_hot's marks, and the host's check of index values. The ops (core/ops/indexing/indexing.cpp,
// scatter.cpp, index_ops.cpp) have checked devices, the index's dtype
// (int64) and the shapes (kernels see 0-d tensors as 1-d); on the CPU they
// have also checked the index values with find_out_of_range. On CUDA the
// kernels check the values and report a bad one asynchronously
// (kernels/cuda/indexing.h); `op` names the calling op in that report and
// in CUDA's dtype Errors (the CPU kernels name their own kernel, as they
// always have). Tensors may be strided.
#include <cstdint>
#include <optional>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/scatter_functors.h"

namespace ember {

struct IndexingKernels {
  // The first value of the int64 `index` outside [low, high) that the host
  // can see without waiting for a device: the CPU scans the values; CUDA
  // returns none (its kernels check them, and the Error comes later).
  Kernel<std::optional<int64_t>(const Tensor& index, int64_t low, int64_t high)>
      find_out_of_range;
  // out[p] = self[p with p[dim] = index[p]] for every position p of index
  // (out: index's shape). Any dtype.
  Kernel<void(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
              const Tensor& index)>
      gather;
  // out = self with the whole slices along dim picked by the 1-d index (out
  // contiguous: self's shape with index.numel() at dim). Any dtype.
  Kernel<void(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
              const Tensor& index)>
      index_select;
  // self[p with p[dim] = index[p]] += src[p] for every position p of index
  // (src at least index's size in every dim); repeats accumulate. Numeric
  // dtypes: bool is refused even when there is nothing to add.
  Kernel<void(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
              const Tensor& src)>
      scatter_add;
  // self[p with p[dim] = index[p]] = src[p]; where positions repeat, one of
  // the writes lands. Any dtype.
  Kernel<void(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
              const Tensor& src)>
      scatter;
  // self[p with p[dim] = index[p]] = reduce(that, src[p]): scatter_reduce's
  // "prod", "amax", "amin" ("sum" and "mean" are scatter_adds). Numeric
  // dtypes, refused as scatter_add's.
  Kernel<void(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
              const Tensor& src, functors::ScatterReduce reduce)>
      scatter_reduce;
  // out[i, indices[i, 0]] = 1 for each row i: one_hot's marks. out: (n, C)
  // int64 zeros, contiguous; indices: (n, 1) int64, any strides (n >= 1).
  // The class values are checked here, not by the op: the CPU raises
  // "one_hot: class values must be non-negative, got V" or "one_hot: class
  // value V is out of range for C classes" before writing; CUDA reports a bad
  // value as its other indexing kernels do ("one_hot: index V is out of
  // bounds for dimension 1 with size C").
  Kernel<void(const Tensor& out, const Tensor& indices)> one_hot;
};

}  // namespace ember
