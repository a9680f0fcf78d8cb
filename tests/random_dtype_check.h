#pragma once
// Runs the random family's kernels (kernels/common/random_kernels.h) of one
// device for each dtype and checks that each takes exactly its dtypes:
// uniform, normal and the dropout keep-mask float32 and float64, randint
// int64 too; the dispatch's Error naming the op for the others. Values land
// in range. Shared by the CPU tests and the CUDA tests, so both backends are
// held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/elementwise/compare.h>
#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/elementwise/logical.h>
#include <ember/core/ops/reduction/reduce.h>
#include <ember/kernels/common/dtype_set.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::random_dtype_check {

using dtype_check::kDtypes;
using dtype_check::refuses;

inline void check_device(Device device) {
  const RandomKernels& k = kernels().random;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kDtypes) {
    const Tensor out = empty({9}, opts.dtype(t));
    const bool floating = accepts(DtypeSet::kFloating, t);
    {
      INFO("uniform, " << t);
      auto run = [&] { k.uniform.on(device, "uniform_")(out, 2.0, 3.0); };
      if (floating) {
        REQUIRE_NOTHROW(run());
        CHECK(all(ge(out, 2.0)).item<bool>());
        CHECK(all(le(out, 3.0)).item<bool>());
      } else {
        CHECK_THROWS_WITH(run(), refuses("uniform_", t));
      }
    }
    {
      INFO("normal, " << t);
      auto run = [&] { k.normal.on(device, "normal_")(out, 0.0, 1.0); };
      if (floating) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses("normal_", t));
    }
    {
      INFO("randint, " << t);
      auto run = [&] { k.randint.on(device, "randint")(out, -3, 4); };
      if (accepts(DtypeSet::kNumeric, t)) {
        REQUIRE_NOTHROW(run());
        CHECK(all(ge(out, -3)).item<bool>());
        CHECK(all(lt(out, 4)).item<bool>());
      } else {
        CHECK_THROWS_WITH(run(), refuses("randint", t));
      }
    }
    {
      INFO("dropout_mask, " << t);
      auto run = [&] { k.dropout_mask.on(device, "dropout")(out, 0.5); };
      if (floating) {
        REQUIRE_NOTHROW(run());
        CHECK(all(logical_or(eq(out, 0.0), eq(out, 2.0))).item<bool>());
      } else {
        CHECK_THROWS_WITH(run(), refuses("dropout", t));
      }
    }
  }
}

}  // namespace ember::random_dtype_check
