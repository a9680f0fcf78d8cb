#pragma once
// Runs the copy family's kernels (kernels/common/copy_kernels.h) of one device
// for each dtype and checks that each takes every dtype: copy every
// (destination, source) pair, with the cast of static_cast and src broadcast
// and transposed, and fill every dtype, strided. Shared by the CPU tests and
// the CUDA tests, so both backends are held to the same sets.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::copy_dtype_check {

using dtype_check::kEveryDtype;

inline void check_device(Device device) {
  const CopyKernels& k = kernels().copy;
  const TensorOptions opts = TensorOptions().device(device);
  // (3, 2) from the transpose of a (2, 3) source: a strided copy on every device.
  const Tensor values = tensor({{0.0, 1.0, 2.0}, {3.0, 0.0, 5.0}}, kDouble);
  for (ScalarType from : kEveryDtype) {
    const Tensor src = values.to(from).to(device).t();
    for (ScalarType to : kEveryDtype) {
      INFO("copy " << from << " -> " << to);
      const Tensor dst = empty({3, 2}, opts.dtype(to));
      REQUIRE_NOTHROW(k.copy.on(device, "copy_")(dst, src));
      CHECK(equal(dst.cpu().to(kDouble), values.to(from).t().to(to).to(kDouble)));
    }
  }
  for (ScalarType t : kEveryDtype) {
    INFO("fill " << t);
    const Tensor x = zeros({3, 4}, opts.dtype(t));
    REQUIRE_NOTHROW(k.fill.on(device, "fill_")(x.slice(1, 0, 4, 2), 1));  // every other column
    CHECK(equal(x.cpu().to(kDouble), tensor({{1., 0., 1., 0.}, {1., 0., 1., 0.}, {1., 0., 1., 0.}}, kDouble)));
  }
}

}  // namespace ember::copy_dtype_check
