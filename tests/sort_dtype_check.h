#pragma once
// Runs the sort family's kernels (kernels/common/sort_kernels.h) of one device
// for each dtype and checks that each accepts every dtype (the op refuses bool
// for topk, kthvalue and median before the kernel) and lays its indices out as
// (outer, m, inner). Shared by the CPU tests and the CUDA tests, so both
// backends are held to the same set.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include <vector>

#include "dtype_check.h"

namespace ember::sort_dtype_check {

using dtype_check::kEveryDtype;

// t's elements, read on the CPU.
inline std::vector<int64_t> values_of(const Tensor& t) {
  const Tensor c = t.to(Device(kCPU)).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

inline void check_device(Device device) {
  const SortKernels& k = kernels().sort;
  const TensorOptions opts = TensorOptions().device(device);
  const TensorOptions index_opts = opts.dtype(kLong);
  const SortRows r{2, 3, 2};  // (2, 3, 2) along the middle dim: strided rows
  for (ScalarType t : kEveryDtype) {
    INFO(t);
    // Equal elements keep their input order, whichever the direction.
    const Tensor x = ones({2, 3, 2}, opts.dtype(t));
    for (bool descending : {false, true}) {
      const Tensor indices = empty({2, 3, 2}, index_opts);
      CHECK_NOTHROW(k.sort.on(device, "sort")(indices, x, r, descending));
      CHECK(values_of(indices) == std::vector<int64_t>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2});
    }
    const Tensor top = empty({2, 2, 2}, index_opts);
    CHECK_NOTHROW(k.topk.on(device, "topk")(top, x, r, 2, /*largest=*/true, /*sorted=*/true));
    CHECK(values_of(top) == std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
    for (bool nan_wins : {false, true}) {
      const Tensor kth = empty({2, 1, 2}, index_opts);
      CHECK_NOTHROW(k.kth.on(device, "kthvalue")(kth, x, r, 1, nan_wins));
      CHECK(values_of(kth) == std::vector<int64_t>{1, 1, 1, 1});
    }
  }
}

}  // namespace ember::sort_dtype_check
