#pragma once
// Runs the bucketing family's kernels (kernels/common/bucketing_kernels.h) of
// one device for each dtype and checks that each accepts exactly the dtypes of
// its set there (searchsorted every dtype, bincount int64 and the floating
// dtypes, histc the floating dtypes), the dispatch's Error naming the op and
// the dtype for the others. Shared by the CPU tests and the CUDA tests, so
// both backends are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include <functional>

#include "dtype_check.h"

namespace ember::bucketing_dtype_check {

using dtype_check::kDtypes;
using dtype_check::refuses;

inline void check_device(Device device) {
  const BucketingKernels& k = kernels().bucketing;
  const TensorOptions opts = TensorOptions().device(device);
  const Tensor index = zeros({4}, opts.dtype(kLong));
  for (ScalarType t : kDtypes) {
    auto expect = [&](const char* name, DtypeSet set, const std::function<void()>& run) {
      INFO(name << ", " << t);
      if (accepts(set, t))
        CHECK_NOTHROW(run());
      else
        CHECK_THROWS_WITH(run(), refuses(name, t));
    };
    // Four values in one row of three.
    const Tensor seq = zeros({1, 3}, opts.dtype(t)), values = zeros({4}, opts.dtype(t));
    const Tensor positions = empty({4}, opts.dtype(kLong));
    expect("searchsorted", kSearchsortedDtypes, [&] {
      k.searchsorted.on(device, "searchsorted")(positions, seq, values, Tensor(), 1, 3, false);
    });
    // bins and weights of dtype t.
    const Tensor bins = zeros({2}, opts.dtype(t)), weights = ones({4}, opts.dtype(t));
    expect("bincount", kBincountDtypes,
           [&] { k.bincount.on(device, "bincount")(bins, index, weights); });
    const Tensor x = zeros({4}, opts.dtype(t));
    expect("histc", kHistcDtypes, [&] { k.histc.on(device, "histc")(bins, x, 0.0, 1.0); });
  }
}

}  // namespace ember::bucketing_dtype_check
