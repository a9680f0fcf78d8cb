// Philox random fills on the device; see kernels/cuda/random.h.
#include "ember/kernels/cuda/random.h"

#include <algorithm>
#include <type_traits>

#include "ember/core/generator.h"
#include "ember/kernels/common/philox.h"
#include "ember/kernels/cuda/cuda_check.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

// One thread per element: value i depends only on (seed, base, i), as on the CPU.
template <typename T>
__global__ void uniform_kernel(T* out, int64_t n, uint64_t seed, uint64_t base, double from,
                               double span) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const auto k = static_cast<uint64_t>(i);
    if constexpr (std::is_same_v<T, float>) {
      out[i] = static_cast<T>(from + span * philox::uniform_float(seed, base, k));
    } else {
      out[i] = static_cast<T>(from + span * philox::uniform_double(seed, base, k));
    }
  }
}

template <typename T>
__global__ void normal_kernel(T* out, int64_t n, uint64_t seed, uint64_t base, double mean,
                              double std) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    out[i] = static_cast<T>(mean + std * philox::normal(seed, base, static_cast<uint64_t>(i)));
  }
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

// Reserves `blocks` Philox blocks of the current device's generator: (seed, first block).
std::pair<uint64_t, uint64_t> reserve(uint64_t blocks) {
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  return default_generator(Device(kCUDA, device)).reserve(blocks);
}

}  // namespace

void fill_uniform(void* out, ScalarType dtype, int64_t n, double from, double to) {
  EMBER_CHECK(from <= to, "uniform_: from (", from, ") must be <= to (", to, ")");
  if (n == 0) return;
  dispatch_floating(dtype, "uniform_", [&]<typename T>() {
    const auto blocks = std::is_same_v<T, float> ? philox::blocks_for_uniform32(n)
                                                  : philox::blocks_for_uniform64(n);
    const auto [seed, base] = reserve(blocks);
    uniform_kernel<T><<<grid_for(n), kThreads>>>(static_cast<T*>(out), n, seed, base, from, to - from);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void fill_normal(void* out, ScalarType dtype, int64_t n, double mean, double std) {
  EMBER_CHECK(std >= 0, "normal_: std must be non-negative, got ", std);
  if (n == 0) return;
  dispatch_floating(dtype, "normal_", [&]<typename T>() {
    const auto [seed, base] = reserve(philox::blocks_for_normal(n));
    normal_kernel<T><<<grid_for(n), kThreads>>>(static_cast<T*>(out), n, seed, base, mean, std);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda
