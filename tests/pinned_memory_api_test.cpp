// Pinned host memory on the CPU side: the event rule of PinnedBlockPool
// (kernels/common/cuda_plans/pinned_memory_pool.h) driven by a fake raw
// allocator and fake completion events; and, on a machine without a CUDA device, the Errors and
// answers of the public API (pin_memory, pinned TensorOptions, stats, the
// DataLoader's pin_memory option). The GPU side is tests/cuda/pinned_test.cpp.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/runtime.h>
#include <ember/kernels/common/cuda_plans/pinned_memory_pool.h>
#include <ember/nn/data/data_loader.h>
#include <ember/nn/data/dataset.h>

#include "test_helpers.h"

using namespace ember;
using namespace ember_test;
using Catch::Contains;

namespace {

constexpr size_t MiB = 1024 * 1024;

// Host memory standing in for cudaHostAlloc, counting its calls.
class FakeHost final : public RawAllocator {
 public:
  ~FakeHost() override {
    for (void* p : live_) std::free(p);
  }
  void* malloc(size_t nbytes, StreamId /*stream*/) override {
    void* p = std::malloc(nbytes);
    live_.insert(p);
    ++mallocs;
    return p;
  }
  void free(void* ptr) override {
    live_.erase(ptr);
    std::free(ptr);
    ++frees;
  }
  int mallocs = 0, frees = 0;

 private:
  std::unordered_set<void*> live_;
};

// Events the test completes by hand; counts records and releases.
class FakeEvents final : public CompletionEvents {
 public:
  Event record(int device) override {
    auto* e = new int(device);
    done_[e] = false;
    ++recorded;
    return e;
  }
  bool query(Event e) override { return done_.at(e); }
  void release(Event e) override {
    REQUIRE(done_.at(e));
    done_.erase(e);
    delete static_cast<int*>(e);
    ++released;
  }
  void complete_all() {
    for (auto& [e, done] : done_) done = true;
  }
  ~FakeEvents() override {
    for (auto& [e, done] : done_) delete static_cast<int*>(e);
  }
  int recorded = 0, released = 0;

 private:
  std::unordered_map<Event, bool> done_;
};

}  // namespace

TEST_CASE("pinned pool: a freed block no copy used is reused at once", "[cuda_pinned]") {
  FakeHost host;
  FakeEvents events;
  PinnedBlockPool pool(host, events, "pinned");
  void* a = pool.allocate(1000);
  REQUIRE(pool.owns(a));
  pool.deallocate(a);
  CHECK_FALSE(pool.owns(a));
  CHECK(pool.pending_blocks() == 0);
  CHECK(pool.allocate(1000) == a);
  CHECK(host.mallocs == 1);
  CHECK(events.recorded == 0);
}

TEST_CASE("pinned pool: a block freed while its copy runs is not reused until the copy completed",
          "[cuda_pinned]") {
  FakeHost host;
  FakeEvents events;
  PinnedBlockPool pool(host, events, "pinned");
  void* a = pool.allocate(1000);
  pool.record_use(a, 0);  // an async copy from a is queued
  pool.deallocate(a);
  CHECK(pool.pending_blocks() == 1);
  CHECK_FALSE(pool.owns(a));
  CHECK(pool.stats().allocated_bytes == BlockPool::round_size(1000));  // still held

  void* b = pool.allocate(1000);  // the copy is still running: a must not come back
  CHECK(b != a);
  CHECK(pool.pending_blocks() == 1);

  events.complete_all();
  pool.deallocate(b);
  void* c = pool.allocate(1000);  // reclaims a first, then reuses a freed block
  CHECK(pool.pending_blocks() == 0);
  CHECK((c == a || c == b));
  CHECK(events.released == events.recorded);
  CHECK(host.mallocs == 1);  // every block came from the first small segment
  pool.deallocate(c);
  CHECK(pool.stats().allocated_bytes == 0);
}

TEST_CASE("pinned pool: a block reused by copy after copy keeps only its running events",
          "[cuda_pinned]") {
  FakeHost host;
  FakeEvents events;
  PinnedBlockPool pool(host, events, "pinned");
  void* a = pool.allocate(64);
  pool.record_use(a, 0);
  events.complete_all();
  pool.record_use(a, 1);  // drops the completed event of the first copy
  CHECK(events.recorded == 2);
  CHECK(events.released == 1);
  pool.deallocate(a);
  CHECK(pool.pending_blocks() == 1);  // the second copy still runs
  events.complete_all();
  pool.empty_cache();  // reclaims it, then frees the whole free segment
  CHECK(pool.pending_blocks() == 0);
  CHECK(events.released == 2);
  CHECK(host.frees == 1);
  CHECK(pool.stats().reserved_bytes == 0);
}

TEST_CASE("pinned pool: empty_cache keeps the segment of a block whose copy still runs",
          "[cuda_pinned]") {
  FakeHost host;
  FakeEvents events;
  PinnedBlockPool pool(host, events, "pinned");
  void* big = pool.allocate(30 * MiB);  // its own segment
  pool.record_use(big, 0);
  pool.deallocate(big);
  pool.empty_cache();
  CHECK(host.frees == 0);
  CHECK(pool.stats().reserved_bytes >= 30 * MiB);
  events.complete_all();
  pool.empty_cache();
  CHECK(host.frees == 1);
  CHECK(pool.stats().num_system_frees == 1);
}

TEST_CASE("pinned pool: record_use of memory it did not hand out does nothing", "[cuda_pinned]") {
  FakeHost host;
  FakeEvents events;
  PinnedBlockPool pool(host, events, "pinned");
  int not_pinned = 0;
  pool.record_use(&not_pinned, 0);
  CHECK(events.recorded == 0);
  void* a = pool.allocate(100);
  pool.deallocate(a);
  pool.record_use(a, 0);  // freed: nothing records on it
  CHECK(events.recorded == 0);
}

TEST_CASE("pinned memory: TensorOptions carries the pinned flag", "[cuda_pinned]") {
  CHECK_FALSE(TensorOptions().pinned_memory());
  CHECK(TensorOptions().pinned_memory(true).pinned_memory());
  CHECK(TensorOptions(kDouble).pinned_memory(true).dtype() == kDouble);
}

TEST_CASE("pinned memory: ordinary CPU tensors are not pinned", "[cuda_pinned]") {
  CHECK_FALSE(ones({3}).is_pinned());
  CHECK_FALSE(empty({0}).is_pinned());
  CHECK_FALSE(ones({4, 4}).t().is_pinned());
}

TEST_CASE("pinned memory: without a CUDA device pinning raises the Error PyTorch gives",
          "[cuda_pinned]") {
  if (cuda::is_available()) return;  // tests/cuda/pinned_test.cpp covers a device
  REQUIRE_THROWS_WITH(ones({2, 3}).pin_memory(),
                      Contains("pin_memory: pinned (page-locked) host memory needs a CUDA "
                               "device"));
  REQUIRE_THROWS_WITH(empty({4}, TensorOptions().pinned_memory(true)),
                      Contains("pinned_memory: pinned (page-locked) host memory needs a CUDA "
                               "device"));
  REQUIRE_THROWS_WITH(zeros({4}, TensorOptions(kLong).pinned_memory(true)),
                      Contains("needs a CUDA device"));
  const MemoryStats s = cuda::host_memory_stats();
  CHECK(s.num_allocs == 0);
  CHECK(s.reserved_bytes == 0);
  cuda::host_empty_cache();  // does nothing, never throws
  cuda::reset_peak_host_memory_stats();
}

TEST_CASE("pinned memory: pinned options on a CUDA device are an Error naming the device",
          "[cuda_pinned]") {
  REQUIRE_THROWS_WITH(empty({4}, TensorOptions().device(Device(kCUDA, 0)).pinned_memory(true)),
                      Contains("pinned_memory: only CPU tensors can be pinned, but the options "
                               "ask for cuda:0"));
}

TEST_CASE("pinned memory: a non_blocking copy between CPU tensors is an ordinary copy",
          "[cuda_pinned]") {
  const Tensor src = arange(6, kDouble).view({2, 3});
  Tensor dst = zeros({3, 2}, kFloat);
  dst.copy_(src.t(), /*non_blocking=*/true);
  require_values(dst, {0, 3, 1, 4, 2, 5});
  require_values(src.to(kLong, /*non_blocking=*/true), {0, 1, 2, 3, 4, 5});
}

TEST_CASE("pinned memory: DataLoader pin_memory without a device warns and keeps pageable "
          "batches with the same values", "[cuda_pinned]") {
  if (cuda::is_available()) return;
  const auto ds = std::make_shared<const data::TensorDataset>(
      arange(24, kFloat).view({6, 4}), arange(6, kLong));
  data::DataLoader pinned(ds, data::DataLoaderOptions().batch_size(4).pin_memory(true));
  data::DataLoader plain(ds, data::DataLoaderOptions().batch_size(4));
  CHECK_FALSE(pinned.options().pin_memory());  // switched off, with a warning on stderr
  std::vector<Tensor> a, b;
  for (data::Batch& batch : pinned) {
    CHECK_FALSE(batch.data.is_pinned());
    a.push_back(batch.data);
  }
  for (data::Batch& batch : plain) b.push_back(batch.data);
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (size_t i = 0; i < a.size(); ++i) CHECK(values(a[i]) == values(b[i]));
}
