// The CUDA Philox fill kernel: one thread per Philox block, writing the
// block's kPerBlock values with the draw functors the CPU uses
// (kernels/common/philox.h), so value i depends only on (seed, base, i).
#include <algorithm>

#include "ember/kernels/common/philox.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/random.h"

namespace ember::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

template <typename T, typename Draw>
__global__ void philox_fill_kernel(T* out, int64_t n, uint64_t seed, uint64_t base, Draw draw) {
  constexpr int kPer = Draw::kPerBlock;
  const int64_t blocks = (n + kPer - 1) / kPer;
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const philox::Block r = philox::generate(seed, base + static_cast<uint64_t>(b));
#pragma unroll
    for (int lane = 0; lane < kPer; ++lane) {
      const int64_t i = b * kPer + lane;
      if (i < n) out[i] = draw(r, lane);
    }
  }
}

template <typename T, typename Draw>
void launch(const PhiloxFill& f, const Draw& draw) {
  const int64_t blocks = static_cast<int64_t>(philox::blocks_for<Draw>(f.n));
  const auto grid =
      static_cast<unsigned>(std::min<int64_t>((blocks + kThreads - 1) / kThreads, kMaxBlocks));
  philox_fill_kernel<T, Draw><<<grid, kThreads, 0, 0>>>(static_cast<T*>(f.out), f.n, f.seed,
                                                         f.base, draw);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_philox_fill(const PhiloxFill& f) {
  DeviceGuard guard(f.device);
  switch (f.draw) {
    case PhiloxDraw::kUniform:
      return dispatch_floating(f.dtype, "uniform_", [&]<typename T>() {
        launch<T>(f, philox::UniformDraw<T>{f.a, f.b});
      });
    case PhiloxDraw::kNormal:
      return dispatch_floating(f.dtype, "normal_", [&]<typename T>() {
        launch<T>(f, philox::NormalDraw<T>{f.a, f.b});
      });
    case PhiloxDraw::kRandint:
      return dispatch_numeric(f.dtype, "randint", [&]<typename T>() {
        launch<T>(f, philox::RandintDraw<T>{f.low, f.range});
      });
    case PhiloxDraw::kDropoutMask:
      return dispatch_floating(f.dtype, "dropout", [&]<typename T>() {
        launch<T>(f, philox::DropoutMaskDraw<T>{static_cast<float>(f.a), static_cast<T>(f.b)});
      });
  }
  EMBER_INTERNAL_ASSERT(false, "philox fill: unknown draw ", static_cast<int>(f.draw));
}

}  // namespace ember::cuda::detail
