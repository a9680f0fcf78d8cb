#pragma once
// Runs every row of the reduce op table (kernels/common/reduce_ops.h), and
// arg_reduce and abs_pow_sum, through the registered kernels of one device
// for each dtype, and checks that each accepts exactly the dtypes of its row:
// it runs for those (into an output of the row's dtype), and raises the
// dispatch's Error naming the op and the dtype for the others. Shared by the CPU tests and the CUDA
// tests, so both backends are held to the one table.
#include <catch2/catch.hpp>
#include <cmath>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::reduce_dtype_check {

using dtype_check::kDtypes;
using dtype_check::kEveryDtype;
using dtype_check::refuses;

inline void check_device(Device device) {
  const ReduceKernels& k = kernels().reduce;
  const TensorOptions opts = TensorOptions().device(device);
  const DimVector keep{1, 2};  // (3, 2) reduced over dim 0
  for (ScalarType t : kEveryDtype) {
    const Tensor x = ones({3, 2}, opts.dtype(t));
    for (int i = 0; i < kNumReduceOps; ++i) {
      const char* name = kReduceOpNames[i];
      INFO("reduce " << name << ", " << t);
      const Tensor out = empty({2}, opts.dtype(reduce_out_dtype(ReduceOp(i), t)));
      // param 2: mean's count, var's divisor, the p of NormP and AbsPowSum.
      auto run = [&] { k.reduce.on(device, name)(name, ReduceOp(i), out, x, keep, 2.0); };
      if (accepts(kReduceOpDtypes[i], t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
  }
  for (ScalarType t : kDtypes) {
    const Tensor x = ones({3, 2}, opts.dtype(t));
    for (bool is_max : {true, false}) {
      const char* name = is_max ? "argmax" : "argmin";
      INFO(name << ", " << t);
      const Tensor values = empty({2}, opts.dtype(t)), indices = empty({2}, opts.dtype(kLong));
      CHECK_NOTHROW(k.arg_reduce.on(device, name)(name, is_max, values, indices, x, 0));
      CHECK_NOTHROW(k.arg_reduce.on(device, name)(name, is_max, Tensor(), indices, x, 0));
    }
    INFO("abs_pow_sum, " << t);
    const Tensor out = empty({}, opts.dtype(kDouble));
    for (double p : {1.0, 2.0, 3.0, double(INFINITY)}) {
      auto run = [&] { k.abs_pow_sum.on(device, "abs_pow_sum")("abs_pow_sum", out, x, p); };
      if (is_floating_point(t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses("abs_pow_sum", t));
    }
  }
}

}  // namespace ember::reduce_dtype_check
