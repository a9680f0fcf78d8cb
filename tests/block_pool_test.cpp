// The caching block pool behind the CUDA allocator (kernels/common/block_pool.h),
// driven on the CPU by a fake raw allocator that hands out host memory up to a
// capacity and counts its calls: rounding, best-fit reuse, splitting, merging,
// per-stream pools, empty_cache, stats, out-of-memory retry and thread safety.
#include <catch2/catch.hpp>

#include <ember/core/error.h>
#include <ember/kernels/common/block_pool.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

using ember::BlockPool;
using ember::StreamId;

namespace {

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * 1024;

// Host memory in place of a device: at most `capacity` bytes at once. The pool
// calls it under its own lock, so it needs none.
class FakeDevice final : public ember::RawAllocator {
 public:
  explicit FakeDevice(size_t capacity = std::numeric_limits<size_t>::max())
      : capacity_(capacity) {}
  ~FakeDevice() override {
    for (const auto& [ptr, size] : live_) std::free(ptr);
  }

  void* malloc(size_t nbytes, StreamId /*stream*/) override {
    if (nbytes > capacity_ - in_use_) {
      ++refused;
      return nullptr;
    }
    void* ptr = std::malloc(nbytes);  // large sizes are mapped lazily: no pages touched
    REQUIRE(ptr != nullptr);
    live_.emplace(ptr, nbytes);
    in_use_ += nbytes;
    ++mallocs;
    return ptr;
  }

  void free(void* ptr) override {
    auto it = live_.find(ptr);
    REQUIRE(it != live_.end());
    in_use_ -= it->second;
    live_.erase(it);
    std::free(ptr);
    ++frees;
  }

  size_t in_use() const { return in_use_; }

  int mallocs = 0;
  int frees = 0;
  int refused = 0;

 private:
  size_t capacity_;
  size_t in_use_ = 0;
  std::unordered_map<void*, size_t> live_;
};

char* as_bytes(void* ptr) { return static_cast<char*>(ptr); }

}  // namespace

TEST_CASE("block_pool: sizes round up to 512-byte blocks and segments follow the pool rule",
          "[block_pool]") {
  CHECK(BlockPool::round_size(0) == 512);
  CHECK(BlockPool::round_size(1) == 512);
  CHECK(BlockPool::round_size(512) == 512);
  CHECK(BlockPool::round_size(513) == 1024);
  CHECK(BlockPool::round_size(1 * MiB) == 1 * MiB);
  CHECK(BlockPool::round_size(1 * MiB + 1) == 1 * MiB + 512);
  // Small blocks (<= 1 MiB) share 2 MiB segments.
  CHECK(BlockPool::segment_size(512) == 2 * MiB);
  CHECK(BlockPool::segment_size(1 * MiB) == 2 * MiB);
  // Large blocks under 10 MiB share 20 MiB segments; bigger ones get a 2 MiB multiple.
  CHECK(BlockPool::segment_size(1 * MiB + 512) == 20 * MiB);
  CHECK(BlockPool::segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(BlockPool::segment_size(10 * MiB) == 10 * MiB);
  CHECK(BlockPool::segment_size(10 * MiB + 512) == 12 * MiB);
  CHECK(BlockPool::segment_size(50 * MiB + 512) == 52 * MiB);
}

TEST_CASE("block_pool: one request takes a rounded block from one raw segment", "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  void* p = pool.allocate(1, 0);
  REQUIRE(p != nullptr);
  const ember::MemoryStats s = pool.stats();
  CHECK(s.allocated_bytes == 512);
  CHECK(s.reserved_bytes == 2 * MiB);
  CHECK(s.peak_allocated_bytes == 512);
  CHECK(s.num_allocs == 1);
  CHECK(s.num_system_allocs == 1);
  CHECK(s.num_system_frees == 0);
  CHECK(device.mallocs == 1);
  CHECK(device.in_use() == 2 * MiB);
  pool.deallocate(p);
  CHECK(pool.stats().allocated_bytes == 0);
  CHECK(pool.stats().reserved_bytes == 2 * MiB);  // cached, not returned
  CHECK(device.frees == 0);
}

TEST_CASE("block_pool: a steady loop of the same sizes makes zero raw allocations after its "
          "first iteration",
          "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  const std::vector<size_t> sizes = {100,     4000,     300000,          1 * MiB,
                                     3 * MiB, 12 * MiB, 50 * MiB + 7};
  uint64_t raw_after_first = 0;
  for (int step = 0; step < 10; ++step) {
    std::vector<void*> blocks;
    for (size_t n : sizes) blocks.push_back(pool.allocate(n, 0));
    // Free in a different order every step: merging must restore the same segments.
    if (step % 2 == 1) std::swap(blocks.front(), blocks.back());
    for (void* p : blocks) pool.deallocate(p);
    REQUIRE(pool.stats().allocated_bytes == 0);
    if (step == 0) raw_after_first = pool.stats().num_system_allocs;
  }
  // A 2 MiB segment for the small sizes, a 20 MiB one shared by 3 MiB and 12 MiB
  // (12 MiB fits the 17 MiB tail), and 52 MiB for 50 MiB + 7.
  CHECK(raw_after_first == 3);
  CHECK(pool.stats().num_system_allocs == raw_after_first);
  CHECK(pool.stats().num_system_frees == 0);
  CHECK(pool.stats().num_allocs == 10 * sizes.size());
  CHECK(pool.stats().reserved_bytes == (2 + 20 + 52) * MiB);
}

TEST_CASE("block_pool: a split leaves the tail free and the next request reuses it",
          "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");

  SECTION("small segment: any tail of 512 bytes or more is kept") {
    char* a = as_bytes(pool.allocate(1000, 0));  // 1024-byte block
    char* b = as_bytes(pool.allocate(2000, 0));  // 2048-byte block right after it
    CHECK(b == a + 1024);
    CHECK(device.mallocs == 1);
    CHECK(pool.stats().allocated_bytes == 1024 + 2048);
    pool.deallocate(a);
    pool.deallocate(b);
  }
  SECTION("large segment: a tail over 1 MiB is kept") {
    char* a = as_bytes(pool.allocate(3 * MiB, 0));  // 20 MiB segment, 17 MiB tail
    char* b = as_bytes(pool.allocate(5 * MiB, 0));
    CHECK(b == a + 3 * MiB);
    CHECK(device.mallocs == 1);
    CHECK(pool.stats().allocated_bytes == 8 * MiB);
    pool.deallocate(a);
    pool.deallocate(b);
  }
  SECTION("large segment: a tail of 1 MiB or less stays in the block and counts as allocated") {
    void* a = pool.allocate(19 * MiB + 512 * KiB, 0);  // 20 MiB segment, 512 KiB tail
    CHECK(pool.stats().allocated_bytes == 20 * MiB);
    void* b = pool.allocate(512 * KiB, 0);  // small: never from a large segment's tail
    CHECK(device.mallocs == 2);
    pool.deallocate(a);
    pool.deallocate(b);
  }
  SECTION("a freed block is reused for a smaller request of the same pool (best fit)") {
    char* big = as_bytes(pool.allocate(12 * MiB, 0));  // its own 12 MiB segment
    char* mid = as_bytes(pool.allocate(3 * MiB, 0));   // a 20 MiB segment
    pool.deallocate(big);
    pool.deallocate(mid);
    // Free: 12 MiB and 20 MiB; the best fit for 4 MiB is the 12 MiB one.
    char* c = as_bytes(pool.allocate(4 * MiB, 0));
    CHECK(c == big);
    CHECK(device.mallocs == 2);
    pool.deallocate(c);
  }
  CHECK(pool.stats().allocated_bytes == 0);
}

TEST_CASE("block_pool: freed neighbours of one segment merge into one block", "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  char* a = as_bytes(pool.allocate(4096, 0));
  char* b = as_bytes(pool.allocate(4096, 0));
  char* c = as_bytes(pool.allocate(4096, 0));
  char* d = as_bytes(pool.allocate(4096, 0));  // keeps c away from the segment's free tail
  REQUIRE(b == a + 4096);
  REQUIRE(c == b + 4096);
  REQUIRE(d == c + 4096);

  pool.deallocate(a);
  pool.deallocate(c);
  // a and c are 4096-byte holes that do not touch: 8192 comes from the tail after d.
  char* e = as_bytes(pool.allocate(8192, 0));
  CHECK(e == d + 4096);
  pool.deallocate(b);
  // a, b and c are one 12288-byte block now.
  char* f = as_bytes(pool.allocate(12288, 0));
  CHECK(f == a);
  CHECK(device.mallocs == 1);

  pool.deallocate(d);
  pool.deallocate(e);
  pool.deallocate(f);
  // Everything merged back into the whole segment, which empty_cache can return.
  pool.empty_cache();
  CHECK(device.frees == 1);
  CHECK(pool.stats().reserved_bytes == 0);
  CHECK(device.in_use() == 0);
}

TEST_CASE("block_pool: each stream has its own free blocks", "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  const StreamId s1 = 0x1000;
  const StreamId s2 = 0x2000;
  void* a = pool.allocate(4096, s1);
  pool.deallocate(a);
  void* b = pool.allocate(4096, s2);  // s1's cached segment is not s2's
  CHECK(b != a);
  CHECK(device.mallocs == 2);
  void* c = pool.allocate(4096, s1);
  CHECK(c == a);
  CHECK(device.mallocs == 2);
  pool.deallocate(b);
  pool.deallocate(c);
  // Each stream's segment is whole again: empty_cache returns both.
  pool.empty_cache();
  CHECK(device.frees == 2);
}

TEST_CASE("block_pool: empty_cache returns only wholly free segments", "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  void* big = pool.allocate(12 * MiB, 0);    // a 12 MiB segment
  void* mid = pool.allocate(3 * MiB, 0);     // a 20 MiB segment ...
  void* mid2 = pool.allocate(3 * MiB, 0);    // ... shared with this block
  void* small = pool.allocate(4096, 0);      // a 2 MiB segment
  REQUIRE(device.mallocs == 3);
  pool.deallocate(big);
  pool.deallocate(mid);
  pool.deallocate(small);

  pool.empty_cache();  // the 20 MiB segment still holds mid2
  CHECK(device.frees == 2);
  CHECK(pool.stats().num_system_frees == 2);
  CHECK(pool.stats().reserved_bytes == 20 * MiB);
  CHECK(device.in_use() == 20 * MiB);
  CHECK(pool.stats().allocated_bytes == 3 * MiB);

  pool.deallocate(mid2);
  pool.empty_cache();
  CHECK(device.frees == 3);
  CHECK(pool.stats().reserved_bytes == 0);
  CHECK(device.in_use() == 0);
  // A pool emptied of cache starts over with raw allocations.
  void* again = pool.allocate(4096, 0);
  CHECK(device.mallocs == 4);
  pool.deallocate(again);
}

TEST_CASE("block_pool: peak allocated is a high-water mark until reset_peak", "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  void* a = pool.allocate(1 * MiB, 0);
  void* b = pool.allocate(3 * MiB, 0);
  CHECK(pool.stats().peak_allocated_bytes == 4 * MiB);
  pool.deallocate(b);
  CHECK(pool.stats().allocated_bytes == 1 * MiB);
  CHECK(pool.stats().peak_allocated_bytes == 4 * MiB);
  pool.reset_peak();
  CHECK(pool.stats().peak_allocated_bytes == 1 * MiB);
  void* c = pool.allocate(2 * MiB, 0);
  CHECK(pool.stats().peak_allocated_bytes == 3 * MiB);
  pool.deallocate(a);
  pool.deallocate(c);
  CHECK(pool.stats().peak_allocated_bytes == 3 * MiB);
}

TEST_CASE("block_pool: out of memory frees the cached segments and retries once, then raises "
          "an Error with the request and the stats",
          "[block_pool]") {
  FakeDevice device(40 * MiB);
  BlockPool pool(device, "fake:0");
  void* keep = pool.allocate(12 * MiB, 0);
  void* x = pool.allocate(12 * MiB, 0);
  void* y = pool.allocate(12 * MiB, 0);
  pool.deallocate(x);
  pool.deallocate(y);
  REQUIRE(device.in_use() == 36 * MiB);  // two of the three segments only cached

  // 20 MiB fits no cached block and not beside the cache: the cache goes, the retry succeeds.
  void* z = pool.allocate(20 * MiB, 0);
  REQUIRE(z != nullptr);
  CHECK(device.refused == 1);
  CHECK(device.frees == 2);
  ember::MemoryStats s = pool.stats();
  CHECK(s.num_system_allocs == 4);
  CHECK(s.num_system_frees == 2);
  CHECK(s.reserved_bytes == 32 * MiB);
  CHECK(s.allocated_bytes == 32 * MiB);

  // 100 MiB does not fit even with the cache gone.
  REQUIRE_THROWS_WITH(pool.allocate(100 * MiB, 0),
                      Catch::Contains("fake:0: out of memory") &&
                          Catch::Contains("requested 104857600 bytes") &&
                          Catch::Contains("allocated 33554432 bytes") &&
                          Catch::Contains("reserved 33554432 bytes") &&
                          Catch::Contains("4 raw allocations, 2 raw frees"));
  CHECK(device.refused == 3);  // the first try and the one retry
  // A size whose rounding would overflow is refused before any raw call.
  REQUIRE_THROWS_WITH(pool.allocate(std::numeric_limits<size_t>::max(), 0),
                      Catch::Contains("fake:0: out of memory: requested " +
                                      std::to_string(std::numeric_limits<size_t>::max()) +
                                      " bytes, more than any device has"));
  CHECK(device.refused == 3);
  s = pool.stats();
  CHECK(s.allocated_bytes == 32 * MiB);  // the failure changed nothing
  CHECK(s.num_allocs == 4);

  pool.deallocate(keep);
  pool.deallocate(z);
  void* after = pool.allocate(30 * MiB, 0);  // the pool still works after the error
  CHECK(after != nullptr);
  pool.deallocate(after);
}

TEST_CASE("block_pool: a reserved limit refuses segments past it like a full device, after "
          "returning the cache, and names itself in the Error",
          "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  CHECK(pool.reserved_limit() == BlockPool::kNoLimit);
  pool.set_reserved_limit(44 * MiB);
  CHECK(pool.reserved_limit() == 44 * MiB);
  void* keep = pool.allocate(12 * MiB, 0);  // its own 12 MiB segment
  pool.deallocate(pool.allocate(20 * MiB, 0));  // 20 MiB more, cached: 32 reserved
  // 22 MiB fits no cached block, and 32 + 22 > 44: the cache goes, then 12 + 22 fits.
  void* z = pool.allocate(22 * MiB, 0);
  REQUIRE(z != nullptr);
  CHECK(device.refused == 0);  // the limit refused, not the device
  ember::MemoryStats s = pool.stats();
  CHECK(s.num_system_frees == 1);
  CHECK(s.reserved_bytes == 34 * MiB);
  // 12 MiB more would reserve 46 MiB, and nothing is cached to give back.
  REQUIRE_THROWS_WITH(pool.allocate(12 * MiB, 0),
                      Catch::Contains("fake:0: out of memory") &&
                          Catch::Contains("reserved 35651584 bytes") &&
                          Catch::Contains("reserved limit 46137344 bytes"));
  CHECK(device.refused == 0);
  CHECK(pool.stats().allocated_bytes == 34 * MiB);  // the failure changed nothing
  // Exactly the limit is allowed: 34 + 10 = 44.
  void* edge = pool.allocate(10 * MiB, 0);
  CHECK(pool.stats().reserved_bytes == 44 * MiB);
  pool.deallocate(edge);
  // A small request's 2 MiB segment: the cached 10 MiB goes back first.
  void* small = pool.allocate(1 * KiB, 0);
  CHECK(pool.stats().reserved_bytes == 36 * MiB);
  CHECK(pool.stats().num_system_frees == 2);
  // A limit under what is reserved frees nothing; it only refuses new segments.
  pool.set_reserved_limit(1 * MiB);
  CHECK(pool.stats().reserved_bytes == 36 * MiB);
  CHECK_THROWS_WITH(pool.allocate(3 * MiB, 0), Catch::Contains("reserved limit 1048576 bytes"));
  void* reuse = pool.allocate(2 * KiB, 0);  // the small segment's free tail: no new segment
  CHECK(reuse != nullptr);
  pool.set_reserved_limit(BlockPool::kNoLimit);
  void* big = pool.allocate(100 * MiB, 0);  // lifted: allowed again
  CHECK(big != nullptr);
  for (void* p : {keep, z, small, reuse, big}) pool.deallocate(p);
}

TEST_CASE("block_pool: owns tells live blocks; freeing a foreign pointer is an error",
          "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  void* a = pool.allocate(100, 0);
  CHECK(pool.owns(a));
  pool.deallocate(a);
  CHECK_FALSE(pool.owns(a));
  REQUIRE_NOTHROW(pool.deallocate(nullptr));
  int not_from_pool = 0;
  REQUIRE_THROWS_WITH(pool.deallocate(&not_from_pool),
                      Catch::Contains("fake:0: freeing") &&
                          Catch::Contains("did not hand out or already took back"));
  REQUIRE_THROWS_WITH(pool.deallocate(a), Catch::Contains("did not hand out or already took back"));
}

TEST_CASE("block_pool: allocate and free from 4 threads keep blocks disjoint and stats exact",
          "[block_pool]") {
  FakeDevice device;
  BlockPool pool(device, "fake:0");
  constexpr int kThreads = 4;
  constexpr int kSteps = 2000;
  const std::vector<size_t> sizes = {64, 700, 5000, 70000, 1 * MiB, 2 * MiB + 3, 11 * MiB};
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread keeps up to 5 blocks, stamped with its id at both ends:
      // a block handed out twice would show another thread's stamp.
      std::vector<std::pair<char*, size_t>> live;
      for (int i = 0; i < kSteps; ++i) {
        const size_t n = sizes[(i * 7 + t * 3) % sizes.size()];
        char* p = as_bytes(pool.allocate(n, 0));
        p[0] = p[n - 1] = static_cast<char>('A' + t);
        live.emplace_back(p, n);
        if (live.size() > 5 || i % 3 == 0) {
          auto [q, m] = live[(i + t) % live.size()];
          if (q[0] != 'A' + t || q[m - 1] != 'A' + t) ++bad[t];
          pool.deallocate(q);
          live.erase(live.begin() + (i + t) % live.size());
        }
      }
      for (auto [q, m] : live) pool.deallocate(q);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(bad[t] == 0);
  const ember::MemoryStats s = pool.stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == uint64_t(kThreads) * kSteps);
  CHECK(s.reserved_bytes == device.in_use());
  CHECK(s.num_system_allocs == uint64_t(device.mallocs));
  pool.empty_cache();  // all blocks are free, so every segment is whole again
  CHECK(pool.stats().reserved_bytes == 0);
  CHECK(device.in_use() == 0);
  CHECK(device.frees == device.mallocs);
}
