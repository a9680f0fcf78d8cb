#pragma once
// Runs the indexing family's kernels (kernels/common/indexing_kernels.h) of
// one device for each dtype and checks that each accepts exactly its dtypes:
// gather, index_select and scatter every dtype, scatter_add and
// scatter_reduce the numeric ones (bool refused by dispatch_numeric's Error
// naming the kernel). Shared by the CPU tests and the CUDA tests, so both
// backends are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::indexing_dtype_check {

using dtype_check::kEveryDtype;
using dtype_check::refuses;

inline void check_device(Device device) {
  const IndexingKernels& k = kernels().indexing;
  const TensorOptions opts = TensorOptions().device(device);
  // (2, 3) indexed along dim 1 at 0 and 2; index_select's index is 1-d.
  const Tensor index = zeros({2, 2}, opts.dtype(kLong)), line = zeros({2}, opts.dtype(kLong));
  for (ScalarType t : kEveryDtype) {
    INFO(t);
    const Tensor self = zeros({2, 3}, opts.dtype(t)), out = empty({2, 2}, opts.dtype(t));
    CHECK_NOTHROW(k.gather.on(device, "gather")("gather", out, self, 1, index));
    CHECK_NOTHROW(k.index_select.on(device, "index_select")("index_select", out, self, 1, line));
    CHECK_NOTHROW(k.scatter.on(device, "scatter")("scatter", self, 1, index, out));
    auto add = [&] { k.scatter_add.on(device, "scatter_add")("scatter_add", self, 1, index, out); };
    auto reduce = [&] {
      k.scatter_reduce.on(device, "scatter_reduce")("scatter_reduce", self, 1, index, out,
                                                    functors::ScatterReduce::kAmax);
    };
    if (accepts(DtypeSet::kNumeric, t)) {
      CHECK_NOTHROW(add());
      CHECK_NOTHROW(reduce());
    } else {
      CHECK_THROWS_WITH(add(), refuses("scatter_add", t));
      CHECK_THROWS_WITH(reduce(), refuses("scatter_reduce", t));
    }
  }
}

}  // namespace ember::indexing_dtype_check
