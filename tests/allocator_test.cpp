// The CPU caching allocator (Note [Caching allocator] in core/allocator.h).
#include "test_helpers.h"

using namespace ember;

TEST_CASE("the allocator returns 64-byte aligned memory", "[allocator]") {
  for (int64_t n : {1, 3, 17, 1000, 100000}) {
    Tensor t = empty({n});
    REQUIRE(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64 == 0);
  }
}

TEST_CASE("freed blocks are reused and stats track bytes in use", "[allocator]") {
  cpu::empty_cache();
  const MemoryStats before = cpu::memory_stats();
  void* first = nullptr;
  {
    Tensor t = empty({1000});
    first = t.data_ptr();
    REQUIRE(cpu::memory_stats().allocated_bytes >= before.allocated_bytes + 4000);
  }
  REQUIRE(cpu::memory_stats().allocated_bytes == before.allocated_bytes);
  Tensor again = empty({1000});
  REQUIRE(again.data_ptr() == first);  // same size class -> the cached block
  const MemoryStats after = cpu::memory_stats();
  REQUIRE(after.num_system_allocs == before.num_system_allocs + 1);
  REQUIRE(after.reserved_bytes >= after.allocated_bytes);
  REQUIRE(after.peak_allocated_bytes >= after.allocated_bytes);
}

TEST_CASE("a steady loop over same-sized tensors makes no system allocation", "[allocator]") {
  Tensor a = ones({256, 256}), b = ones({256, 256});
  auto step = [&] {
    Tensor c = a + b;
    Tensor d = c * a;
  };
  step();  // the first step fills the cache
  const uint64_t system_allocs = cpu::memory_stats().num_system_allocs;
  for (int i = 0; i < 50; ++i) step();
  REQUIRE(cpu::memory_stats().num_system_allocs == system_allocs);
}

TEST_CASE("empty_cache returns cached blocks to the system", "[allocator]") {
  { Tensor t = empty({12345}); }
  const MemoryStats cached = cpu::memory_stats();
  REQUIRE(cached.reserved_bytes > cached.allocated_bytes);
  cpu::empty_cache();
  const MemoryStats emptied = cpu::memory_stats();
  REQUIRE(emptied.reserved_bytes == emptied.allocated_bytes);
  REQUIRE(emptied.num_system_frees > cached.num_system_frees);
}

TEST_CASE("with caching off every allocation goes to the system", "[allocator]") {
  cpu::set_caching_enabled(false);
  const uint64_t before = cpu::memory_stats().num_system_allocs;
  for (int i = 0; i < 3; ++i) Tensor t = empty({100});
  const uint64_t after = cpu::memory_stats().num_system_allocs;
  cpu::set_caching_enabled(true);
  REQUIRE(after == before + 3);
}

TEST_CASE("peak stats can be reset", "[allocator]") {
  { Tensor big = empty({1 << 20}); }
  REQUIRE(cpu::memory_stats().peak_allocated_bytes >= (size_t(4) << 20));
  cpu::reset_peak_memory_stats();
  const MemoryStats s = cpu::memory_stats();
  REQUIRE(s.peak_allocated_bytes == s.allocated_bytes);
}
