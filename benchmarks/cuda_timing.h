#pragma once
// Device-time helper of the CUDA benchmark programs (header-only, CUDA builds
// only): cudaEvents around work queued on stream 0, where ember runs.
#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include <ember/kernels/cuda/cuda_check.h>

#include "bench_timing.h"

namespace bench_timing {

// Median device time of `reps` runs of f (work queued on stream 0), in seconds.
// One untimed call first: first blocks from cudaMalloc, library heuristics,
// lazy module loading.
template <typename F>
double median_device_seconds(int reps, const F& f) {
  cudaEvent_t start, stop;
  EMBER_CUDA_CHECK(cudaEventCreate(&start));
  EMBER_CUDA_CHECK(cudaEventCreate(&stop));
  f();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    EMBER_CUDA_CHECK(cudaEventRecord(start, nullptr));
    f();
    EMBER_CUDA_CHECK(cudaEventRecord(stop, nullptr));
    EMBER_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(std::move(times));
}

}  // namespace bench_timing
