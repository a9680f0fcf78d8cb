#pragma once
// Runs the matmul table's entry points through the registered kernels of one
// device for each dtype: gemm takes exactly the dtypes its gemm_dtypes names
// (int64, float32, float64 on the CPU; float32, float64 on CUDA), and dot,
// where the device has it, the CPU's set. Shared by the CPU and CUDA tests.
#include <catch2/catch.hpp>
#include <ember/core/ops/creation/factory.h>
#include <ember/kernels/common/kernel_registry.h>

#include <string>

namespace ember::matmul_dtype_check {

inline void check_device(Device device) {
  const MatmulKernels& k = kernels().matmul;
  const DtypeSet takes = k.gemm_dtypes.on(device, "mm")();
  CHECK(takes == (device.is_cuda() ? DtypeSet::kFloating : DtypeSet::kNumeric));
  const TensorOptions opts = TensorOptions().device(device);
  for (ScalarType t : {kBool, kLong, kFloat, kDouble}) {
    INFO(t);
    const Tensor a = ones({2, 3}, opts.dtype(t)), b = ones({3, 2}, opts.dtype(t));
    const Tensor out = empty({2, 2}, opts.dtype(t));
    const GemmOperandRef ra{a.data_ptr(), GemmLayout{3, false}, 0};
    const GemmOperandRef rb{b.data_ptr(), GemmLayout{2, false}, 0};
    auto gemm = [&] { k.gemm.on(device, "mm")("mm", out, 3, ra, rb, 1, 0); };
    if (accepts(takes, t)) {
      CHECK_NOTHROW(gemm());
      CHECK(out.to(kDouble).cpu().sum().item<double>() == 12);
    } else {
      CHECK_THROWS_WITH(gemm(), Catch::Contains(std::string(dtype_name(t))));
    }
    if (!k.dot.has(device.type())) continue;
    const Tensor v = ones({3}, opts.dtype(t)), s = empty({}, opts.dtype(t));
    auto dot = [&] { k.dot.on(device, "dot")(s, v, v); };
    if (accepts(takes, t))
      CHECK_NOTHROW(dot());
    else
      CHECK_THROWS_WITH(dot(), Catch::Contains("dot: dtype bool is not supported"));
  }
}

}  // namespace ember::matmul_dtype_check
