// The CUDA Philox fill kernel: one thread per Philox block, writing the
// block's kPerBlock values with the draw functors the CPU uses
// (kernels/common/philox.h), so value i depends only on (seed, base, i);
// below it the family's entry points (kernels/cuda/random.h): checks, the
// generator reservation (the same block counts as the CPU loops), launch.
#include <algorithm>

#include "ember/core/generator.h"
#include "ember/kernels/common/philox.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
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

namespace ember::cuda {
namespace {

// Blocks of `draw` that n values of dtype take: what the CPU reserves too.
uint64_t blocks_for(PhiloxDraw draw, ScalarType dtype, int64_t n) {
  const auto u = static_cast<uint64_t>(n);
  switch (draw) {
    case PhiloxDraw::kUniform:
      return dtype == kFloat ? philox::blocks_for<philox::UniformDraw<float>>(u)
                             : philox::blocks_for<philox::UniformDraw<double>>(u);
    case PhiloxDraw::kNormal: return philox::blocks_for<philox::NormalDraw<double>>(u);
    case PhiloxDraw::kRandint: return philox::blocks_for<philox::RandintDraw<int64_t>>(u);
    case PhiloxDraw::kDropoutMask: return philox::blocks_for<philox::DropoutMaskDraw<float>>(u);
  }
  return 0;
}

void check_floating_dtype(const char* op, const Tensor& t) {
  dispatch_floating(t.scalar_type(), op, []<typename>() {});
}

void fill(const char* op, const Tensor& t, PhiloxFill f) {
  EMBER_CHECK(t.is_cuda(), op, ": ", t.toString(), " is not a CUDA tensor");
  EMBER_INTERNAL_ASSERT(t.is_contiguous(), op, ": the fill needs a contiguous tensor");
  f.dtype = t.scalar_type();
  f.out = t.data_ptr();
  f.n = t.numel();
  f.device = detail::device_of(t);
  const auto [seed, base] = default_generator(t.device()).reserve(blocks_for(f.draw, f.dtype, f.n));
  f.seed = seed;
  f.base = base;
  if (f.n > 0) detail::launch_philox_fill(f);
}

}  // namespace

void fill_uniform(const Tensor& t, double from, double to) {
  EMBER_CHECK(from <= to, "uniform_: from (", from, ") must be <= to (", to, ")");
  check_floating_dtype("uniform_", t);
  PhiloxFill f;
  f.draw = PhiloxDraw::kUniform;
  f.a = from;
  f.b = to - from;
  fill("uniform_", t, f);
}

void fill_normal(const Tensor& t, double mean, double std) {
  EMBER_CHECK(std >= 0, "normal_: std must be non-negative, got ", std);
  check_floating_dtype("normal_", t);
  PhiloxFill f;
  f.draw = PhiloxDraw::kNormal;
  f.a = mean;
  f.b = std;
  fill("normal_", t, f);
}

void fill_randint(const Tensor& t, int64_t low, int64_t high) {
  EMBER_CHECK(low < high, "randint: low (", low, ") must be less than high (", high, ")");
  dispatch_numeric(t.scalar_type(), "randint", []<typename>() {});
  PhiloxFill f;
  f.draw = PhiloxDraw::kRandint;
  f.low = low;
  f.range = static_cast<uint64_t>(high - low);
  fill("randint", t, f);
}

void fill_dropout_mask(const Tensor& mask, double p) {
  EMBER_CHECK(p >= 0 && p < 1, "dropout: the keep-mask needs 0 <= p < 1, got ", p);
  check_floating_dtype("dropout", mask);
  PhiloxFill f;
  f.draw = PhiloxDraw::kDropoutMask;
  f.a = 1 - p;
  f.b = 1 / (1 - p);
  fill("dropout", mask, f);
}

}  // namespace ember::cuda
