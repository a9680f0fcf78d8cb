// The CPU Philox fills (kernels/cpu/random.h), with the per-block draws of
// kernels/common/philox.h that the CUDA kernels use, so the same seed gives
// the same values on the CPU and on CUDA, and each device's generator
// advances by the same blocks.
#include "ember/kernels/cpu/random.h"

#include <tuple>

#include "ember/core/generator.h"
#include "ember/core/parallel.h"
#include "ember/kernels/common/philox.h"

namespace ember::cpu {
namespace {

// Fills the contiguous CPU tensor t with `draw`, one Philox block per kPerBlock values.
template <typename T, typename Draw>
void fill_cpu(const Tensor& t, const Draw& draw) {
  const int64_t n = t.numel();
  const uint64_t blocks = philox::blocks_for<Draw>(static_cast<uint64_t>(n));
  // Named variables, not a structured binding: the lambda below captures
  // them, which clang 14 refuses for bindings.
  uint64_t seed, base;
  std::tie(seed, base) = default_generator(t.device()).reserve(blocks);
  T* p = t.data_ptr<T>();
  parallel_for(0, static_cast<int64_t>(blocks), 1024, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const philox::Block r = philox::generate(seed, base + static_cast<uint64_t>(b));
      for (int lane = 0; lane < Draw::kPerBlock; ++lane) {
        const int64_t i = b * Draw::kPerBlock + lane;
        if (i < n) p[i] = draw(r, lane);
      }
    }
  });
}

}  // namespace

void uniform_kernel(const Tensor& t, double from, double to) {
  dispatch_floating(t.scalar_type(), "uniform_", [&]<typename T>() {
    fill_cpu<T>(t, philox::UniformDraw<T>{from, to - from});
  });
}

void normal_kernel(const Tensor& t, double mean, double std) {
  dispatch_floating(t.scalar_type(), "normal_", [&]<typename T>() {
    fill_cpu<T>(t, philox::NormalDraw<T>{mean, std});
  });
}

void randint_kernel(const Tensor& t, int64_t low, int64_t high) {
  const uint64_t range = static_cast<uint64_t>(high - low);
  dispatch_numeric(t.scalar_type(), "randint", [&]<typename T>() {
    fill_cpu<T>(t, philox::RandintDraw<T>{low, range});
  });
}

// Element i keeps (1/(1-p)) when uniform i of the draw is below 1-p, else 0.
// Uniforms follow the 32-bit stream layout of kernels/common/philox.h (four
// per block), whatever the dtype; the CUDA kernel runs the same draw, so a
// seed gives one mask on both.
void dropout_mask_kernel(const Tensor& mask, double p) {
  const int64_t n = mask.numel();
  dispatch_floating(mask.scalar_type(), "dropout", [&]<typename T>() {
    using Draw = philox::DropoutMaskDraw<T>;
    const uint64_t blocks = philox::blocks_for<Draw>(static_cast<uint64_t>(n));
    // Named variables, not a structured binding: the lambda below captures
    // them, which clang 14 refuses for bindings.
    uint64_t seed, base;
    std::tie(seed, base) = default_generator(mask.device()).reserve(blocks);
    const Draw draw{static_cast<float>(1 - p), static_cast<T>(1 / (1 - p))};
    T* m = mask.data_ptr<T>();
    parallel_for(0, static_cast<int64_t>(blocks), 2048, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const philox::Block r = philox::generate(seed, base + static_cast<uint64_t>(b));
        for (int lane = 0; lane < Draw::kPerBlock && b * Draw::kPerBlock + lane < n; ++lane)
          m[b * Draw::kPerBlock + lane] = draw(r, lane);
      }
    });
  });
}

}  // namespace ember::cpu
