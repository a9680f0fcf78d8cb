// The CUDA caching allocator (kernels/cuda/memory.cpp) on a real device: a
// steady loop makes no cudaMalloc after its first step, the stats add up, and
// an impossible request raises an Error. Its block logic is tested on the CPU
// in tests/block_pool_test.cpp.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include <ember/core/allocator.h>
#include <ember/kernels/common/block_pool.h>
#include <ember/core/cuda/memory.h>

namespace {

ember::Allocator* cuda_allocator() { return ember::get_allocator(ember::Device(ember::kCUDA)); }

}  // namespace

TEST_CASE("cuda memory: the caching allocator is registered for kCUDA", "[cuda]") {
  ember::Allocator* allocator = cuda_allocator();
  REQUIRE(allocator != nullptr);
  CHECK(allocator->device().is_cuda());
}

TEST_CASE("cuda memory: a steady loop makes zero cudaMalloc after its first step", "[cuda]") {
  ember::Allocator* allocator = cuda_allocator();
  ember::cuda::empty_cache();
  ember::cuda::reset_peak_memory_stats();
  const ember::MemoryStats start = ember::cuda::memory_stats();
  const std::vector<size_t> sizes = {4, 1000, 1 << 20, 3 << 20, 64 << 20};
  size_t step_bytes = 0;
  for (size_t n : sizes) step_bytes += ember::BlockPool::round_size(n);

  uint64_t mallocs_after_first = 0;
  for (int step = 0; step < 20; ++step) {
    std::vector<void*> blocks;
    for (size_t n : sizes) {
      void* p = allocator->allocate(n);
      REQUIRE(cudaMemset(p, step, n) == cudaSuccess);  // real device memory of n bytes
      blocks.push_back(p);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (size_t i = 0; i < blocks.size(); ++i) allocator->deallocate(blocks[i], sizes[i]);
    if (step == 0) mallocs_after_first = ember::cuda::memory_stats().num_system_allocs;
  }
  const ember::MemoryStats s = ember::cuda::memory_stats();
  CHECK(mallocs_after_first > start.num_system_allocs);
  CHECK(s.num_system_allocs == mallocs_after_first);
  CHECK(s.num_allocs == start.num_allocs + 20 * sizes.size());
  CHECK(s.allocated_bytes == start.allocated_bytes);
  CHECK(s.peak_allocated_bytes >= start.allocated_bytes + step_bytes);
  CHECK(s.reserved_bytes > start.reserved_bytes);
  CHECK(ember::cuda::memory_stats(0).num_allocs == s.num_allocs);  // device 0 is current

  ember::cuda::empty_cache();
  const ember::MemoryStats emptied = ember::cuda::memory_stats();
  CHECK(emptied.reserved_bytes == start.reserved_bytes);
  CHECK(emptied.num_system_frees - start.num_system_frees ==
        mallocs_after_first - start.num_system_allocs);
}

TEST_CASE("cuda memory: an impossible request raises an Error with its size and the stats",
          "[cuda]") {
  ember::Allocator* allocator = cuda_allocator();
  const size_t huge = size_t(1) << 50;  // 1 PiB
  REQUIRE_THROWS_WITH(allocator->allocate(huge),
                      Catch::Contains("cuda:0: out of memory") &&
                          Catch::Contains("requested " + std::to_string(huge) + " bytes") &&
                          Catch::Contains("reserved"));
  // The failed cudaMalloc left no sticky error: the device keeps working.
  CHECK(cudaGetLastError() == cudaSuccess);
  void* p = allocator->allocate(4096);
  CHECK(cudaMemset(p, 0, 4096) == cudaSuccess);
  allocator->deallocate(p, 4096);
}
