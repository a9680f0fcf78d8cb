#pragma once
// Runs the scan family's kernels (kernels/common/scan_kernels.h) of one device
// for each dtype and checks that each accepts exactly its dtypes: cumsum and
// cumprod int64 and the floating dtypes (the op scans bool in int64),
// logcumsumexp the floating dtypes, cummax and cummin every dtype; the
// dispatch's Error naming the op and the dtype for the others. Shared by the
// CPU tests and the CUDA tests, so both backends are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::scan_dtype_check {

using dtype_check::kEveryDtype;
using dtype_check::refuses;

inline void check_device(Device device) {
  const ScanKernels& k = kernels().scan;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    // (2, 3, 2) scanned along the middle dim.
    const Tensor x = ones({2, 3, 2}, opts.dtype(t)), out = empty({2, 3, 2}, opts.dtype(t));
    for (bool is_prod : {false, true}) {
      const char* name = is_prod ? "cumprod" : "cumsum";
      INFO(name << ", " << t);
      auto run = [&] { k.scan.on(device, name)(name, is_prod, out, x, 2, 3, 2); };
      if (accepts(DtypeSet::kNumeric, t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    {
      INFO("logcumsumexp, " << t);
      auto run = [&] { k.logcumsumexp.on(device, "logcumsumexp")(out, x, 2, 3, 2); };
      if (accepts(DtypeSet::kFloating, t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses("logcumsumexp", t));
    }
    const Tensor indices = empty({2, 3, 2}, opts.dtype(kLong));
    for (bool is_max : {false, true}) {
      const char* name = is_max ? "cummax" : "cummin";
      INFO(name << ", " << t);
      CHECK_NOTHROW(k.cum_extreme.on(device, name)(name, is_max, out, indices, x, 2, 3, 2));
    }
  }
}

}  // namespace ember::scan_dtype_check
