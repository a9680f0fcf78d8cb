// CUDA tensors where there is no device (a CPU build, or a CUDA build on a
// machine without a GPU): asking for one raises an Error that says so. Also
// the device-independent part of the CUDA copies: the geometry the strided
// copy kernel walks (kernels/common/cuda_plans/copy_geometry.h). With a device,
// tests/cuda/tensor_test.cpp checks the copies themselves.
#include <catch2/catch.hpp>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/kernels/common/cuda_plans/copy_geometry.h>
#include <ember/core/cuda/runtime.h>

#include <functional>
#include <vector>

#include "test_helpers.h"

using namespace ember;

namespace {

// The geometry as {sizes..., dst strides..., src strides...} for one comparison.
std::vector<int64_t> flat(const cuda::CopyGeometry& g) {
  std::vector<int64_t> out(g.sizes, g.sizes + g.ndim);
  out.insert(out.end(), g.dst_strides, g.dst_strides + g.ndim);
  out.insert(out.end(), g.src_strides, g.src_strides + g.ndim);
  return out;
}

// What the strided copy kernel does, run on the CPU with the same index math:
// dst[i] = src[i] for every i of dst's shape, both float64 CPU tensors.
void copy_as_the_kernel_does(const Tensor& dst, const Tensor& src) {
  const cuda::CopyGeometry g =
      cuda::make_copy_geometry("copy_", dst.sizes(), dst.strides(), src.sizes(), src.strides());
  double* out = dst.data_ptr<double>();
  const double* in = src.data_ptr<double>();
  for (int64_t i = 0; i < dst.numel(); ++i) {
    int64_t d = 0, s = 0;
    cuda::element_offsets(g, i, d, s);
    out[d] = in[s];
  }
}

}  // namespace

TEST_CASE("cuda tensor: without a device, CUDA factories raise an Error naming CUDA",
          "[cuda_tensor]") {
  if (cuda::is_available()) return;  // tests/cuda/tensor_test.cpp covers a device
  const TensorOptions on_cuda = TensorOptions().device(kCUDA);
  REQUIRE_THROWS_WITH(zeros({2}, on_cuda), Catch::Contains("cannot allocate on cuda") &&
                                               Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(empty({0}, on_cuda), Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(full({2, 3}, 1.5, on_cuda.dtype(kDouble)), Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(ones({2}, TensorOptions().device(Device("cuda:1"))),
                      Catch::Contains("cannot allocate on cuda:1") && Catch::Contains("CUDA"));
}

TEST_CASE("cuda tensor: without a device, to(Device(kCUDA)) and cuda() raise an Error naming CUDA",
          "[cuda_tensor]") {
  if (cuda::is_available()) return;
  const Tensor x = ones({2, 3});
  REQUIRE_THROWS_WITH(x.to(Device(kCUDA)), Catch::Contains("cannot allocate on cuda") &&
                                       Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(x.cuda(), Catch::Contains("cannot allocate on cuda:0") &&
                                    Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(x.to(Device(kCUDA), kDouble), Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(x.to(TensorOptions().device(kCUDA)), Catch::Contains("CUDA"));
  REQUIRE(x.to(Device(kCPU)).is_same(x));  // staying on the CPU still works
}

TEST_CASE("cuda copy geometry: a contiguous copy is one dim of all the elements",
          "[cuda_tensor]") {
  const auto g = cuda::make_copy_geometry("copy_", {2, 3, 4}, {12, 4, 1}, {2, 3, 4}, {12, 4, 1});
  REQUIRE(flat(g) == std::vector<int64_t>{24, 1, 1});
}

TEST_CASE("cuda copy geometry: a transposed source keeps two dims with its strides",
          "[cuda_tensor]") {
  // dst (4, 3) contiguous; src = a (3, 4) contiguous matrix transposed: strides (1, 4).
  const auto g = cuda::make_copy_geometry("copy_", {4, 3}, {3, 1}, {4, 3}, {1, 4});
  REQUIRE(flat(g) == std::vector<int64_t>{4, 3, 3, 1, 1, 4});
}

TEST_CASE("cuda copy geometry: broadcast source dims get stride 0 and size-1 dims go",
          "[cuda_tensor]") {
  // src (3, 1, 1) broadcast to dst (2, 3, 1, 4): dims 0 and 3 are broadcast, dim 2 has size 1.
  const auto g =
      cuda::make_copy_geometry("copy_", {2, 3, 1, 4}, {12, 4, 4, 1}, {3, 1, 1}, {1, 1, 1});
  REQUIRE(flat(g) == std::vector<int64_t>{2, 3, 4, 12, 4, 1, 0, 1, 0});
  // A fill has no source: every src stride is 0. Every other column of a (4, 12) matrix
  // keeps its two dims; of a (4, 10) matrix it is every other element, one dim.
  const auto fill = cuda::make_copy_geometry("fill_", {4, 5}, {12, 2}, {}, {});
  REQUIRE(flat(fill) == std::vector<int64_t>{4, 5, 12, 2, 0, 0});
  const auto merged = cuda::make_copy_geometry("fill_", {4, 5}, {10, 2}, {}, {});
  REQUIRE(flat(merged) == std::vector<int64_t>{20, 2, 0});
}

TEST_CASE("cuda copy geometry: a 0-dim or all-ones shape has no dims left", "[cuda_tensor]") {
  REQUIRE(cuda::make_copy_geometry("copy_", {}, {}, {}, {}).ndim == 0);
  REQUIRE(cuda::make_copy_geometry("copy_", {1, 1}, {5, 7}, {1}, {3}).ndim == 0);
}

TEST_CASE("cuda copy geometry: more than 6 dims that cannot merge are not yet supported",
          "[cuda_tensor]") {
  // dst contiguous (2,)*7; src with every stride doubled, then padded: no two dims merge.
  const std::vector<int64_t> sizes(7, 2);
  const std::vector<int64_t> dst = {64, 32, 16, 8, 4, 2, 1};
  const std::vector<int64_t> src = {1, 2, 4, 8, 16, 32, 64};  // reversed order: a full permute
  REQUIRE_THROWS_WITH(cuda::make_copy_geometry("copy_", sizes, dst, sizes, src),
                      Catch::Contains("copy_: a CUDA copy over 7 dims that cannot be merged") &&
                          Catch::Contains("not yet supported (at most 6)"));
  // The same 7 dims in the same order on both sides merge to one.
  REQUIRE(cuda::make_copy_geometry("copy_", sizes, dst, sizes, dst).ndim == 1);
}

TEST_CASE("cuda copy geometry: the kernels' index math copies views as the CPU copy does",
          "[cuda_tensor]") {
  manual_seed(7);
  const Tensor m = randn({6, 10}, kDouble), p = randn({2, 3, 4, 5}, kDouble);
  struct Case {
    DimVector base_shape;                       // the destination's storage, compared whole
    std::function<Tensor(const Tensor&)> view;  // the part of it written
    Tensor src;
  };
  const std::vector<Case> cases = {
      {{6, 10}, [](const Tensor& b) { return b; }, m.t().contiguous().t()},  // transposed src
      {{10, 6}, [](const Tensor& b) { return b.t(); }, m},                   // transposed dst
      {{6, 10}, [](const Tensor& b) { return b.slice(1, 1, 10, 3); }, m.slice(1, 0, 3)},
      {{6, 10}, [](const Tensor& b) { return b.select(1, 7); }, m.select(1, 2)},
      {{6, 10}, [](const Tensor& b) { return b; }, m.slice(0, 4, 5)},             // a broadcast row
      {{6, 10}, [](const Tensor& b) { return b; }, m.select(1, 3).unsqueeze(1)},  // and column
      // 4-d: a permuted destination, a permuted source broadcast along a dim of size 1.
      {{2, 3, 4, 5}, [](const Tensor& b) { return b.permute({3, 1, 0, 2}); },
       p.permute({3, 1, 0, 2}).slice(2, 1, 2)},
  };
  for (const Case& c : cases) {
    const Tensor want = zeros(c.base_shape, kDouble), got = zeros(c.base_shape, kDouble);
    c.view(want).copy_(c.src);
    copy_as_the_kernel_does(c.view(got), c.src);
    REQUIRE(ember_test::values(got) == ember_test::values(want));
  }
}
