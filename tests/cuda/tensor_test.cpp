// CUDA tensors (core/ops/creation/device_copy.cpp, kernels/cuda/copy*): factories on the
// device, copies CPU <-> CUDA and on the device, item(), device-mismatch
// errors. Each result is compared with the CPU tensor it came from, bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include <ember/ember.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>

using namespace ember;

namespace {

const TensorOptions kOnCuda = TensorOptions().device(kCUDA);
const std::vector<ScalarType> kDtypes = {kBool, kLong, kFloat, kDouble};

// Random CPU data of any dtype: randn (int64: scaled to large values; bool: its sign).
Tensor random_cpu(IntArrayRef shape, ScalarType dtype) {
  const Tensor r = randn(shape, kDouble);
  if (dtype == kBool) return r.gt(0);
  if (dtype == kLong) return (r * 1e12).to(kLong);
  return r.to(dtype);
}

// Whether a and b (both on the CPU) have the same dtype, shape and bytes.
bool bit_equal(const Tensor& a, const Tensor& b) {
  if (!a.is_cpu() || !b.is_cpu()) return false;
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.numel() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

}  // namespace

TEST_CASE("cuda tensor: factories allocate on the device with the requested dtype and shape",
          "[cuda]") {
  const uint64_t allocs = cuda::memory_stats().num_allocs;
  const Tensor z = empty({3, 5}, kOnCuda.dtype(kDouble));
  CHECK(cuda::memory_stats().num_allocs == allocs + 1);  // from the caching allocator
  CHECK(z.is_cuda());
  CHECK(z.device().index() == 0);
  CHECK(z.device() == Device(kCUDA));
  CHECK(z.scalar_type() == kDouble);
  CHECK(z.toString() == "float64 tensor [3, 5] on cuda:0");
  CHECK(empty({0, 4}, kOnCuda).numel() == 0);
  CHECK(ones({2}, TensorOptions().device(Device("cuda:0"))).device().index() == 0);
  REQUIRE_THROWS_WITH(ones({2}, TensorOptions().device(Device(kCUDA, cuda::device_count()))),
                      Catch::Contains("no device " + std::to_string(cuda::device_count())));
}

TEST_CASE("cuda tensor: zeros, ones, full and fill_ write the value into every element on the "
          "device", "[cuda]") {
  for (ScalarType dtype : kDtypes) {
    const TensorOptions o = kOnCuda.dtype(dtype);
    CHECK(bit_equal(zeros({3, 7}, o).cpu(), zeros({3, 7}, dtype)));
    CHECK(bit_equal(ones({1025}, o).cpu(), ones({1025}, dtype)));
    CHECK(bit_equal(full({2, 3}, 7, o).cpu(), full({2, 3}, 7, dtype)));
    CHECK(zeros({0, 3}, o).cpu().numel() == 0);
  }
  CHECK(bit_equal(full({5}, -2.5, kOnCuda).cpu(), full({5}, -2.5)));
  // -0.0 is not zero bytes: it must not take the memset path.
  const Tensor negative_zero = full({4}, -0.0, kOnCuda.dtype(kDouble)).cpu();
  CHECK(std::signbit(negative_zero.data_ptr<double>()[3]));
  // fill_ and zero_ on a non-contiguous view touch only the view's elements.
  Tensor x = full({4, 6}, 3.0, kOnCuda);
  x.slice(1, 0, 6, 2).fill_(-1);
  x.select(0, 2).zero_();
  Tensor want = full({4, 6}, 3.0);
  want.slice(1, 0, 6, 2).fill_(-1);
  want.select(0, 2).zero_();
  CHECK(bit_equal(x.cpu(), want));
  CHECK(x._version() == 2);
}

TEST_CASE("cuda tensor: CPU -> CUDA -> CPU round trips are bit-exact for every dtype and shape",
          "[cuda]") {
  manual_seed(41);
  for (ScalarType dtype : kDtypes) {
    INFO("dtype " << dtype);
    for (const DimVector& shape : std::vector<DimVector>{{}, {1}, {31}, {1025}, {0}, {3, 0, 2},
                                                         {7, 33}, {2, 3, 4, 5}}) {
      INFO("shape " << shape);
      const Tensor x = random_cpu(shape, dtype);
      const Tensor on_device = x.to(Device(kCUDA));
      CHECK(on_device.is_cuda());
      CHECK(on_device.sizes() == x.sizes());
      CHECK(bit_equal(on_device.cpu(), x));
      CHECK(bit_equal(on_device.cuda().clone().cpu(), x));  // D2D copy
    }
  }
}

TEST_CASE("cuda tensor: non-contiguous sources and destinations copy element by element",
          "[cuda]") {
  manual_seed(42);
  for (ScalarType dtype : kDtypes) {
    INFO("dtype " << dtype);
    const Tensor m = random_cpu({9, 13}, dtype);
    // H2D from views (packed on the CPU first).
    for (const Tensor& view : {m.t(), m.slice(1, 1, 12, 3), m.select(1, 4), m.narrow(0, 2, 5),
                               m.slice(0, 0, 1).expand({6, 13})}) {
      CHECK(bit_equal(view.cuda().cpu(), view.contiguous()));
    }
    // D2H and D2D from device views: the storage-span path (transpose), the
    // packed-on-device path (one column of a wide matrix), broadcast views.
    const Tensor d = m.cuda();
    CHECK(bit_equal(d.t().cpu(), m.t().contiguous()));
    CHECK(bit_equal(d.select(1, 4).cpu(), m.select(1, 4).contiguous()));
    CHECK(bit_equal(d.slice(1, 1, 12, 3).cpu(), m.slice(1, 1, 12, 3).contiguous()));
    CHECK(bit_equal(d.slice(0, 3, 4).expand({5, 13}).cpu(),
                    m.slice(0, 3, 4).expand({5, 13}).contiguous()));
    CHECK(bit_equal(d.t().contiguous().cpu(), m.t().contiguous()));
    CHECK(bit_equal(d.t().clone().cpu(), m.t().contiguous()));
    // A 4-d permutation goes through the index-math kernel with 4 dims.
    const Tensor p = random_cpu({2, 3, 4, 5}, dtype);
    CHECK(bit_equal(p.cuda().permute({3, 1, 0, 2}).contiguous().cpu(),
                    p.permute({3, 1, 0, 2}).contiguous()));
  }
}

TEST_CASE("cuda tensor: copy_ into device views, with broadcast and dtype conversion", "[cuda]") {
  manual_seed(43);
  const Tensor src = randn({4, 3}, kDouble);
  // H2D into every other column of a device matrix.
  Tensor d = zeros({4, 6}, kOnCuda.dtype(kDouble));
  d.slice(1, 0, 6, 2).copy_(src);
  Tensor want = zeros({4, 6}, kDouble);
  want.slice(1, 0, 6, 2).copy_(src);
  CHECK(bit_equal(d.cpu(), want));
  CHECK(d._version() == 1);
  // D2D with a broadcast row and a cast to float32, into a transposed view.
  Tensor f = zeros({3, 4}, kOnCuda);
  f.t().copy_(src.cuda().slice(0, 1, 2));
  Tensor want_f = zeros({3, 4});
  want_f.t().copy_(src.slice(0, 1, 2));
  CHECK(bit_equal(f.cpu(), want_f));
  // D2H into a CPU view, with a cast to int64 (truncation, as on the CPU).
  Tensor host = zeros({4, 6}, kLong);
  host.slice(1, 1, 6, 2).copy_((src * 10).cuda());
  Tensor want_host = zeros({4, 6}, kLong);
  want_host.slice(1, 1, 6, 2).copy_(src * 10);
  CHECK(bit_equal(host, want_host));
  // to(device, dtype) converts on the way, both ways.
  for (ScalarType dtype : kDtypes) {
    CHECK(bit_equal(src.to(Device(kCUDA), dtype).cpu(), src.to(dtype)));
    CHECK(bit_equal(src.cuda().to(Device(kCPU), dtype), src.to(dtype)));
    CHECK(bit_equal(src.cuda().to(dtype).cpu(), src.to(dtype)));  // cast kernel on the device
  }
}

TEST_CASE("cuda tensor: item() returns the element and costs exactly one sync", "[cuda]") {
  const Tensor d = tensor({1.5, -2.25, 3.0}, kDouble).cuda();
  const uint64_t before = cuda::sync_count();
  CHECK(d[1].item<double>() == -2.25);
  CHECK(cuda::sync_count() == before + 1);
  CHECK(d[2].item<double>() == 3.0);
  CHECK(cuda::sync_count() == before + 2);
  CHECK(full({}, 123456789012LL, kOnCuda.dtype(kLong)).item<int64_t>() == 123456789012LL);
  CHECK(full({1, 1}, true, kOnCuda.dtype(kBool)).item<bool>());
  CHECK(full({1}, 0.5f, kOnCuda).item<float>() == 0.5f);
  CHECK(cuda::sync_count() == before + 5);
  // Host -> device copies do not wait for the device.
  (void)ones({100}).cuda();
  CHECK(cuda::sync_count() == before + 5);
  REQUIRE_THROWS_WITH(d.item(), Catch::Contains("item: a tensor with 3 elements"));
}

TEST_CASE("cuda tensor: ops on a CPU and a CUDA tensor raise an Error naming both devices",
          "[cuda]") {
  const Tensor a = ones({2, 2}), b = ones({2, 2}, kOnCuda);
  REQUIRE_THROWS_WITH(a + b, Catch::Contains("add: expected all tensors on the same device") &&
                                 Catch::Contains("on cpu") && Catch::Contains("on cuda:0"));
  REQUIRE_THROWS_WITH(mm(b, a), Catch::Contains("mm: expected all tensors on the same device") &&
                                    Catch::Contains("on cpu") && Catch::Contains("on cuda:0"));
  REQUIRE_THROWS_WITH(a.lt(b), Catch::Contains("expected all tensors on the same device"));
  Tensor c = ones({2, 2});
  REQUIRE_THROWS_WITH(c.copy_(b.view({4})),
                      Catch::Contains("copy_: source of shape [4] cannot be broadcast to "
                                      "destination of shape [2, 2]"));
}

TEST_CASE("cuda tensor: gradients flow back through to(kCUDA) and cpu() to the CPU leaf",
          "[cuda]") {
  const Tensor x = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  const Tensor y = x.cuda().cpu();
  (y * y).sum().backward();
  REQUIRE(x.grad().is_cpu());
  CHECK(bit_equal(x.grad(), tensor({2.0, 4.0, 6.0}, kDouble)));
}

TEST_CASE("cuda tensor: a steady loop of to(kCUDA) copies makes no cudaMalloc after its first "
          "step", "[cuda]") {
  const Tensor host = randn({256, 1024});
  const Tensor small = randn({7});
  uint64_t mallocs_after_first = 0;
  for (int step = 0; step < 20; ++step) {
    const Tensor a = host.to(Device(kCUDA)), b = small.to(Device(kCUDA));
    const Tensor c = a.t().contiguous();
    CHECK(c.cpu().numel() == host.numel());
    if (step == 0) mallocs_after_first = cuda::memory_stats().num_system_allocs;
  }
  CHECK(cuda::memory_stats().num_system_allocs == mallocs_after_first);
}

TEST_CASE("cuda tensor: strided copies past the grid limit, broadcast sources cast into device "
          "views, 0-d copies, and a D2H of a view costs one sync", "[cuda]") {
  manual_seed(44);
  // 4100 x 4100 > 65535 * 256 elements: the grid-stride loop of the strided copy kernel.
  const Tensor big = random_cpu({4100, 4100}, kFloat);
  const Tensor dbig = big.cuda();
  CHECK(bit_equal(dbig.t().contiguous().cpu(), big.t().contiguous()));
  CHECK(bit_equal(dbig.t().to(kDouble).cpu(), big.t().to(kDouble)));
  // D2D: a broadcast column, cast float64 -> float32, into every other column of a view.
  const Tensor col = random_cpu({7, 1}, kDouble);
  Tensor dst = zeros({7, 10}, kOnCuda);
  dst.slice(1, 0, 10, 2).copy_(col.cuda());
  Tensor want = zeros({7, 10});
  want.slice(1, 0, 10, 2).copy_(col);
  CHECK(bit_equal(dst.cpu(), want));
  // H2D: a broadcast row of float64, truncated to int64, into a transposed device view.
  const Tensor row = tensor({1.9, -2.9, 3.5, 4.0, -5.5}, kDouble);
  Tensor dl = zeros({5, 3}, kOnCuda.dtype(kLong));
  dl.t().copy_(row);
  Tensor want_l = zeros({5, 3}, kLong);
  want_l.t().copy_(row);
  CHECK(bit_equal(dl.cpu(), want_l));
  // 0-d both ways, and into one element of a device tensor.
  const Tensor s = random_cpu({}, kDouble);
  CHECK(bit_equal(s.cuda().cpu(), s));
  Tensor dm = zeros({3}, kOnCuda.dtype(kDouble));
  dm.select(0, 1).copy_(s);
  Tensor want_m = zeros({3}, kDouble);
  want_m.select(0, 1).copy_(s);
  CHECK(bit_equal(dm.cpu(), want_m));
  // D2H of a sparse view: packed on the device, then one host wait.
  const uint64_t before = cuda::sync_count();
  const Tensor column = dbig.select(1, 7).cpu();
  CHECK(cuda::sync_count() == before + 1);
  CHECK(bit_equal(column, big.select(1, 7).contiguous()));
}
