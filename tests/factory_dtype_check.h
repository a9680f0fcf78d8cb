#pragma once
// Runs the range factory family's kernels (kernels/common/factory_kernels.h)
// of one device for each dtype and checks that each takes exactly int64,
// float32 and float64, with the values of the shared range functors, and
// refuses bool with the dispatch's Error naming the op. Shared by the CPU
// tests and the CUDA tests, so both backends are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/elementwise/compare.h>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/dtype_set.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::factory_dtype_check {

using dtype_check::kDtypes;
using dtype_check::refuses;

inline void check_device(Device device) {
  const FactoryKernels& k = kernels().factory;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kDtypes) {
    const Tensor out = empty({5}, opts.dtype(t));
    {
      INFO("arange, " << t);
      auto run = [&] { k.arange.on(device, "arange")(out, 3, -2, /*integral=*/true); };
      if (accepts(DtypeSet::kNumeric, t)) {
        REQUIRE_NOTHROW(run());
        CHECK(equal(out.cpu(), tensor({3, 1, -1, -3, -5}, kLong).to(t)));
      } else {
        CHECK_THROWS_WITH(run(), refuses("arange", t));
      }
    }
    {
      INFO("linspace, " << t);
      auto run = [&] { k.linspace.on(device, "linspace")(out, -4.0, 4.0); };
      if (accepts(DtypeSet::kNumeric, t)) {
        REQUIRE_NOTHROW(run());
        CHECK(equal(out.cpu(), tensor({-4, -2, 0, 2, 4}, kLong).to(t)));
      } else {
        CHECK_THROWS_WITH(run(), refuses("linspace", t));
      }
    }
  }
}

}  // namespace ember::factory_dtype_check
