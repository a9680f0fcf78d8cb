#pragma once
// Runs every row of the elementwise op tables (kernels/common/elementwise_ops.h)
// through the registered kernel of one device for each dtype, and checks that
// the kernel accepts exactly the dtypes of the row: a result of the right
// dtype for those, the dispatch's Error naming the op and the dtype for the
// others. Shared by the CPU tests and the CUDA tests, so both backends are held
// to the one table.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include "dtype_check.h"

namespace ember::elementwise_dtype_check {

using dtype_check::kEveryDtype;
using dtype_check::refuses;

inline void check_device(Device device) {
  const ElementwiseKernels& k = kernels().elementwise;
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : kEveryDtype) {
    const Tensor a = ones({3}, opts.dtype(t)), b = ones({3}, opts.dtype(t));
    const Tensor c = ones({3}, opts.dtype(t));
    const Scalar one(1);
    for (int i = 0; i < kNumBinaryOps; ++i) {
      const char* name = kBinaryOpNames[i];
      INFO("binary " << name << ", " << t);
      const Tensor out = empty({3}, opts.dtype(t));
      auto run = [&] { k.binary.on(device, name)(name, BinaryOp(i), out, a, b, 1.0); };
      if (accepts(kBinaryOpDtypes[i], t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    for (int i = 0; i < kNumUnaryOps; ++i) {
      const char* name = kUnaryOpNames[i];
      INFO("unary " << name << ", " << t);
      const Tensor out = empty({3}, opts.dtype(kUnaryOpOut[i] == UnaryOut::Bool ? kBool : t));
      auto run = [&] { k.unary.on(device, name)(name, UnaryOp(i), out, a, one, one, one); };
      if (accepts(kUnaryOpDtypes[i], t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    for (int i = 0; i < kNumCompareOps; ++i) {
      const char* name = kCompareOpNames[i];
      INFO("compare " << name << ", " << t);
      const Tensor out = empty({3}, opts.dtype(kBool));
      auto run = [&] { k.compare.on(device, name)(name, CompareOp(i), out, a, b, 0, 0, false); };
      if (accepts(kCompareOpDtypes[i], t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    for (int i = 0; i < kNumTernaryOps; ++i) {
      const char* name = kTernaryOpNames[i];
      INFO("ternary " << name << ", " << t);
      const Tensor out = empty({3}, opts.dtype(t));
      auto run = [&] { k.ternary.on(device, name)(name, TernaryOp(i), out, a, b, c, one); };
      if (accepts(kTernaryOpDtypes[i], t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    for (int i = 0; i < kNumLossOps; ++i) {
      const char* name = kLossOpNames[i];
      INFO("loss " << name << ", " << t);
      const Tensor out = empty({3}, opts.dtype(t));
      auto run = [&] {
        const auto kernel = k.loss.on(device, name);
        if (kLossOpArity[i] == 1) return kernel(name, LossOp(i), out, {&a});
        if (kLossOpArity[i] == 2) return kernel(name, LossOp(i), out, {&a, &b});
        return kernel(name, LossOp(i), out, {&a, &b, &c});
      };
      if (is_floating_point(t)) CHECK_NOTHROW(run());
      else CHECK_THROWS_WITH(run(), refuses(name, t));
    }
    INFO("where, " << t);
    const Tensor out = empty({3}, opts.dtype(t)), condition = ones({3}, opts.dtype(kBool));
    CHECK_NOTHROW(k.where.on(device, "where")(out, condition, a, b));
    CHECK(out.scalar_type() == t);
  }
}

}  // namespace ember::elementwise_dtype_check
