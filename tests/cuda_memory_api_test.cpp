// The CUDA memory API (core/cuda/memory.h, core/cuda/sync_count.h) where
// there is no device: a CPU build, or a CUDA build on a machine without a GPU.
// It must answer, never throw. With a device, tests/cuda/memory_test.cpp checks it.
#include <catch2/catch.hpp>

#include <ember/core/cuda/runtime.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>

TEST_CASE("cuda memory: without a device the stats are zeros and empty_cache does nothing",
          "[cuda_memory]") {
  if (ember::cuda::is_available()) return;  // tests/cuda/memory_test.cpp covers a device
  REQUIRE_NOTHROW(ember::cuda::empty_cache());
  REQUIRE_NOTHROW(ember::cuda::reset_peak_memory_stats());
  const ember::MemoryStats s = ember::cuda::memory_stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.reserved_bytes == 0);
  CHECK(s.peak_allocated_bytes == 0);
  CHECK(s.num_allocs == 0);
  CHECK(s.num_system_allocs == 0);
  CHECK(s.num_system_frees == 0);
  CHECK(ember::cuda::memory_stats(3).reserved_bytes == 0);
}

TEST_CASE("cuda memory: sync_count counts each recorded device-to-host synchronization",
          "[cuda_memory]") {
  const uint64_t before = ember::cuda::sync_count();
  ember::cuda::detail::count_sync();
  ember::cuda::detail::count_sync();
  CHECK(ember::cuda::sync_count() == before + 2);
}
