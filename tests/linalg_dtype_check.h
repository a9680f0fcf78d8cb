#pragma once
// Runs the linalg table's entry points through the registered kernels of one
// device for each dtype: each takes float32 and float64 only, and raises the
// dispatch's Error naming its op for the others. The spectral ones (CPU only)
// are run where the device has them. Shared by the CPU and CUDA tests.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::linalg_dtype_check {

using dtype_check::expect;

inline void check_device(Device device) {
  const LinalgKernels& k = kernels().linalg;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : {kBool, kLong, kFloat, kDouble}) {
    const bool takes = is_floating_point(t);
    // One 2x2 identity: every factorization succeeds on it.
    const auto eye2 = [&] { return eye(2, opts.dtype(kDouble)).view({1, 2, 2}).to(t); };
    const Tensor info = zeros({1}, TensorOptions().dtype(kLong));
    const Tensor pivots = zeros({1, 2}, opts.dtype(kLong));
    expect("lu_factor", t, takes, [&] { k.lu_factor.on(device, "lu_factor")(eye2(), pivots, info); });
    expect("lu_solve", t, takes, [&] {
      const Tensor lu = eye2(), piv = full({1, 2}, 1, opts.dtype(kLong));
      piv.select(1, 1).fill_(2);
      k.lu_solve.on(device, "lu_solve")(lu, piv, eye2(), false);
    });
    expect("cholesky", t, takes, [&] { k.cholesky.on(device, "cholesky")(eye2(), info); });
    expect("triangular_solve", t, takes, [&] {
      k.triangular_solve.on(device, "triangular_solve")(eye2(), eye2(), true, false);
    });
    if (!k.eigh.has(device.type())) continue;
    const Tensor values = empty({1, 2}, opts.dtype(t)), square = empty({1, 2, 2}, opts.dtype(t));
    expect("linalg.eigh", t, takes,
           [&] { k.eigh.on(device, "linalg.eigh")(eye2(), false, values, square); });
    expect("linalg.svd", t, takes, [&] {
      k.svd.on(device, "linalg.svd")(eye2(), false, square, values, empty({1, 2, 2}, opts.dtype(t)));
    });
    expect("linalg.qr", t, takes, [&] {
      k.qr.on(device, "linalg.qr")(eye2(), false, square, empty({1, 2, 2}, opts.dtype(t)));
    });
    expect("linalg.qr", t, takes, [&] {
      k.upper_triangular_inverse.on(device, "linalg.qr")(eye2(), square);
    });
  }
}

}  // namespace ember::linalg_dtype_check
