// Pinned host memory and asynchronous copies on a real device
// (kernels/cuda/pinned_memory.h, core/ops/creation/device_copy.cpp): pin_memory /
// is_pinned, pinned factories, non_blocking H2D and D2H against blocking
// copies (values exact: copies do not round), the sync counter, the rule that
// a pinned block freed while its copy runs is not reused before the copy
// completed, the allocator's stats, and the DataLoader's pinned batches.
// The pool's event logic is tested on the CPU in tests/pinned_memory_api_test.cpp.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/core/cuda/runtime.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>
#include <ember/nn/data/data_loader.h>
#include <ember/nn/data/dataset.h>

#include "../test_helpers.h"

using namespace ember;
using namespace ember_test;
using Catch::Contains;

namespace {

const Device kGpu(kCUDA, 0);

// Random non-zero CPU data of `dtype`: |randn| + 0.1 with randn's sign
// (int64: 10 times that, truncated, so in [1, ...) or (..., -1]).
Tensor random_nonzero(IntArrayRef shape, ScalarType dtype) {
  const Tensor r = randn(shape, kDouble);
  const Tensor v = (r.abs() + 0.1) * where(r > 0, ones(shape, kDouble), -1.0);
  return dtype == kLong ? (v * 10).to(kLong) : v.to(dtype);
}

void require_same(const Tensor& got, const Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  REQUIRE(got.dtype() == want.dtype());
  CHECK(values(got.cpu()) == values(want.cpu()));
}

}  // namespace

TEST_CASE("cuda pinned: pin_memory makes a pinned CPU copy with the same values",
          "[cuda_pinned]") {
  const Tensor x = random_nonzero({5, 7}, kFloat);
  const Tensor p = x.pin_memory();
  CHECK(p.is_pinned());
  CHECK(p.is_cpu());
  CHECK_FALSE(x.is_pinned());
  CHECK_FALSE(p.is_alias_of(x));
  require_same(p, x);
  CHECK(p.pin_memory().is_same(p));  // already pinned: itself, as PyTorch
  CHECK(p.t().is_pinned());          // a view of pinned memory is pinned
  const Tensor q = x.t().pin_memory();  // non-contiguous source
  CHECK(q.is_pinned());
  require_same(q, x.t());
  CHECK(empty({0}, TensorOptions().pinned_memory(true)).numel() == 0);
}

TEST_CASE("cuda pinned: a blocking copy from memory the user page-locked waits for the DMA",
          "[cuda_pinned]") {
  // 64 MiB, so the DMA is still running when an unsynchronized call would return.
  const int64_t n = int64_t(1) << 24;
  void* raw = nullptr;
  REQUIRE(cudaHostAlloc(&raw, size_t(n) * sizeof(float), cudaHostAllocDefault) == cudaSuccess);
  float* host = static_cast<float*>(raw);
  for (int64_t i = 0; i < n; ++i) host[i] = float(i % 1000);
  const Tensor wrapped = from_blob(host, {n}, TensorOptions(kFloat));
  CHECK_FALSE(wrapped.is_pinned());  // not ember's pinned allocator
  const uint64_t syncs = cuda::sync_count();
  const Tensor device = wrapped.to(kGpu);  // blocking
  CHECK(cuda::sync_count() == syncs + 1);
  for (int64_t i = 0; i < n; ++i) host[i] = -1.0f;  // the copy must not see these
  const Tensor back = device.cpu();
  const float* b = back.data_ptr<float>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += b[i] != float(i % 1000);
  CHECK(wrong == 0);
  REQUIRE(cudaFreeHost(raw) == cudaSuccess);
}

TEST_CASE("cuda pinned: pinned factories and the errors for CUDA tensors", "[cuda_pinned]") {
  const Tensor z = zeros({3, 4}, TensorOptions(kDouble).pinned_memory(true));
  CHECK(z.is_pinned());
  CHECK(z.is_cpu());
  require_values(z, std::vector<double>(12, 0.0));
  const Tensor e = empty({1025}, TensorOptions(kLong).pinned_memory(true));
  CHECK(e.is_pinned());
  const Tensor g = ones({3}, TensorOptions().device(kGpu));
  CHECK_FALSE(g.is_pinned());
  REQUIRE_THROWS_WITH(g.pin_memory(), Contains("pin_memory: cannot pin float32 tensor [3] on "
                                               "cuda:0: only CPU tensors can be pinned"));
  REQUIRE_THROWS_WITH(empty({3}, TensorOptions().device(kGpu).pinned_memory(true)),
                      Contains("only CPU tensors can be pinned, but the options ask for cuda:0"));
}

TEST_CASE("cuda pinned: a non_blocking H2D from pinned memory has the values after a sync and "
          "makes no host wait", "[cuda_pinned]") {
  // 65535 * 256 + 3 floats: more than one copy chunk of the DMA engine.
  for (int64_t n : std::vector<int64_t>{0, 1, 31, 1025, 65535LL * 256 + 3}) {
    for (ScalarType dtype : {kFloat, kDouble, kLong}) {
      if (n > 1025 && dtype != kFloat) continue;
      INFO("n " << n << ", " << dtype);
      const Tensor x = random_nonzero({n}, dtype).pin_memory();
      const uint64_t before = cuda::sync_count();
      const Tensor y = x.to(kGpu, /*non_blocking=*/true);
      CHECK(cuda::sync_count() == before);  // no host wait
      CHECK(y.is_cuda());
      cuda::synchronize();
      require_same(y, x);
    }
  }
}

TEST_CASE("cuda pinned: non_blocking H2D of strided, cast and pageable sources", "[cuda_pinned]") {
  const Tensor x = random_nonzero({33, 31}, kDouble).pin_memory();
  const uint64_t before = cuda::sync_count();
  // Packed into a pinned staging block first, then copied asynchronously.
  const Tensor t = x.t().to(kGpu, /*non_blocking=*/true);
  const Tensor f = x.to(kGpu, kFloat, /*non_blocking=*/true);
  Tensor sliced = empty({33, 16}, TensorOptions(kDouble).device(kGpu));
  sliced.copy_(x.slice(1, 0, 31, 2), /*non_blocking=*/true);
  CHECK(cuda::sync_count() == before);
  cuda::synchronize();
  require_same(t, x.t());
  require_same(f, x.to(kFloat));
  require_same(sliced, x.slice(1, 0, 31, 2));

  // Pageable memory ignores non_blocking; a blocking copy from pinned memory
  // waits for its DMA (one counted host wait).
  const Tensor pageable = random_nonzero({1025}, kFloat);
  const uint64_t b2 = cuda::sync_count();
  require_same(pageable.to(kGpu, /*non_blocking=*/true), pageable);  // .cpu() in require_same syncs
  const uint64_t b3 = cuda::sync_count();
  const Tensor blocking = x.to(kGpu);
  CHECK(cuda::sync_count() == b3 + 1);
  require_same(blocking, x);
  CHECK(b3 == b2 + 1);  // only the D2H in require_same
}

TEST_CASE("cuda pinned: a non_blocking D2H into pinned memory is queued and lands after a sync",
          "[cuda_pinned]") {
  const Tensor src = random_nonzero({4100}, kFloat);
  const Tensor g = src.to(kGpu);
  Tensor dst = empty({4100}, TensorOptions(kFloat).pinned_memory(true));
  const uint64_t before = cuda::sync_count();
  dst.copy_(g, /*non_blocking=*/true);
  CHECK(cuda::sync_count() == before);
  cuda::synchronize();
  CHECK(values(dst) == values(src));

  // to(kCPU, non_blocking) lands in pinned memory without a wait, as PyTorch.
  const Tensor back = g.to(Device(kCPU), /*non_blocking=*/true);
  CHECK(back.is_pinned());
  CHECK(cuda::sync_count() == before);
  cuda::synchronize();
  CHECK(values(back) == values(src));
  CHECK_FALSE(g.to(Device(kCPU)).is_pinned());  // blocking: pageable, as today
  CHECK(cuda::sync_count() == before + 1);

  // A pageable or non-contiguous destination waits as a blocking copy does.
  Tensor pageable = empty({4100}, kFloat);
  pageable.copy_(g, /*non_blocking=*/true);
  CHECK(cuda::sync_count() == before + 2);
  CHECK(values(pageable) == values(src));
}

TEST_CASE("cuda pinned: a pinned block freed while its copy runs is not reused before the copy "
          "completed", "[cuda_pinned]") {
  // Keep stream 0 busy so the copy queued behind this work is still pending
  // when the host frees its source and asks for a block of the same size.
  Tensor busy = ones({int64_t(1) << 26}, TensorOptions().device(kGpu));
  const int64_t n = int64_t(1) << 24;  // 64 MiB of float32
  Tensor x = random_nonzero({n}, kFloat).pin_memory();
  const std::vector<double> want = values(x.slice(0, 0, 1000));
  const void* first_block = x.data_ptr();
  for (int i = 0; i < 100; ++i) busy.mul_(1.0);
  const Tensor y = x.to(kGpu, /*non_blocking=*/true);
  x = Tensor();  // frees the block while the copy is queued

  Tensor z = empty({n}, TensorOptions(kFloat).pinned_memory(true));
  CHECK(z.data_ptr() != first_block);
  z.fill_(-1);  // would corrupt y if the copy read from z's memory
  cuda::synchronize();
  CHECK(values(y.slice(0, 0, 1000).cpu()) == want);

  // Once the copy completed, the block is reused without a new cudaHostAlloc.
  const uint64_t allocs = cuda::host_memory_stats().num_system_allocs;
  z = Tensor();
  const Tensor again = empty({n}, TensorOptions(kFloat).pinned_memory(true));
  const Tensor again2 = empty({n}, TensorOptions(kFloat).pinned_memory(true));
  CHECK(cuda::host_memory_stats().num_system_allocs == allocs);
  CHECK((again.data_ptr() == first_block || again2.data_ptr() == first_block));
}

TEST_CASE("cuda pinned: a steady pin loop stops calling cudaHostAlloc and the stats add up",
          "[cuda_pinned]") {
  cuda::synchronize();
  cuda::host_empty_cache();
  cuda::reset_peak_host_memory_stats();
  const MemoryStats start = cuda::host_memory_stats();
  uint64_t after_first = 0;
  for (int step = 0; step < 10; ++step) {
    const Tensor a = random_nonzero({1000}, kFloat).pin_memory();
    const Tensor b = random_nonzero({3 << 20}, kFloat).pin_memory();  // 12 MiB
    const Tensor ga = a.to(kGpu, true), gb = b.to(kGpu, true);
    cuda::synchronize();  // the copies completed: the blocks are free to reuse
    if (step == 0) after_first = cuda::host_memory_stats().num_system_allocs;
  }
  const MemoryStats s = cuda::host_memory_stats();
  CHECK(after_first > start.num_system_allocs);
  CHECK(s.num_system_allocs == after_first);
  CHECK(s.num_allocs >= start.num_allocs + 20);
  CHECK(s.allocated_bytes == start.allocated_bytes);
  CHECK(s.peak_allocated_bytes >= start.allocated_bytes + (size_t(12) << 20));
  cuda::host_empty_cache();
  const MemoryStats emptied = cuda::host_memory_stats();
  CHECK(emptied.reserved_bytes == start.reserved_bytes);
  CHECK(emptied.num_system_frees > start.num_system_frees);
}

TEST_CASE("cuda pinned: the DataLoader builds pinned batches that move asynchronously",
          "[cuda_pinned]") {
  const auto ds = std::make_shared<const data::TensorDataset>(random_nonzero({50, 3, 4, 4}, kFloat),
                                                              arange(50, kLong));
  for (int workers : {0, 2}) {
    INFO("num_workers " << workers);
    data::DataLoader pinned(
        ds, data::DataLoaderOptions().batch_size(16).num_workers(workers).pin_memory(true));
    data::DataLoader plain(ds, data::DataLoaderOptions().batch_size(16));
    CHECK(pinned.options().pin_memory());
    std::vector<Tensor> on_gpu, want;
    for (data::Batch& batch : pinned) {
      CHECK(batch.data.is_pinned());
      CHECK(batch.target.is_pinned());
      const uint64_t before = cuda::sync_count();
      on_gpu.push_back(batch.data.to(kGpu, /*non_blocking=*/true));
      on_gpu.push_back(batch.target.to(kGpu, /*non_blocking=*/true));
      CHECK(cuda::sync_count() == before);
    }
    for (data::Batch& batch : plain) {
      want.push_back(batch.data);
      want.push_back(batch.target);
    }
    cuda::synchronize();
    REQUIRE(on_gpu.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) require_same(on_gpu[i], want[i]);
  }
}
