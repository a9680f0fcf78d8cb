// The device-independent half of the CUDA indexing, RNG and range kernels,
// checked on the CPU: the launch plans of gather / index_select / scatter_add
// walked with the kernels' index math (index_launch_offsets) over CPU tensors
// laid out as a CUDA op's operands would be, against values written here; the
// per-block Philox draws the CPU and CUDA fills share; the range functors.
// With a device, tests/cuda/{indexing,random,factory,dropout}_test.cpp check
// the kernels against the CPU ops.
#include <catch2/catch.hpp>

#include <ember/kernels/common/kernel_registry.h>
#include <ember/kernels/common/philox.h>
#include <ember/kernels/common/range_functors.h>
#include <ember/core/cuda/runtime.h>
#include <ember/kernels/common/cuda_plans/index_launch.h>

#include <string>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;

namespace {

// What the gather kernel does, on the CPU: dense[p] = indexed[p at index[p]]
// (0 and a recorded bad value when out of range). float64 CPU tensors.
std::vector<int64_t> gather_as_the_kernel_does(const cuda::IndexLaunch& l, const Tensor& dense,
                                               const Tensor& indexed, const Tensor& index) {
  std::vector<int64_t> bad;
  double* d = dense.data_ptr<double>();
  const double* x = indexed.data_ptr<double>();
  const int64_t* k = index.data_ptr<int64_t>();
  for (int64_t i = 0; i < l.numel; ++i) {
    int64_t off[3];
    cuda::index_launch_offsets(l, i, off);
    const int64_t v = k[off[cuda::kIndexOperand]];
    if (v < 0 || v >= l.indexed_size) {
      bad.push_back(v);
      d[off[cuda::kDenseOperand]] = 0;
      continue;
    }
    d[off[cuda::kDenseOperand]] = x[off[cuda::kIndexedOperand] + v * l.indexed_stride];
  }
  return bad;
}

// What the scatter_add kernel does, on the CPU (serially: the atomics' sums).
void scatter_add_as_the_kernel_does(const cuda::IndexLaunch& l, const Tensor& src,
                                    const Tensor& self, const Tensor& index) {
  const double* s = src.data_ptr<double>();
  double* x = self.data_ptr<double>();
  const int64_t* k = index.data_ptr<int64_t>();
  for (int64_t i = 0; i < l.numel; ++i) {
    int64_t off[3];
    cuda::index_launch_offsets(l, i, off);
    const int64_t v = k[off[cuda::kIndexOperand]];
    if (v >= 0 && v < l.indexed_size)
      x[off[cuda::kIndexedOperand] + v * l.indexed_stride] += s[off[cuda::kDenseOperand]];
  }
}

// x[i][j] = 10 * i + j, float64, shape (r, c).
Tensor grid(int64_t r, int64_t c) {
  return (arange(r, kDouble).view({r, 1}) * 10 + arange(c, kDouble).view({1, c})).contiguous();
}

}  // namespace

TEST_CASE("cuda index plan: gather over a transposed self and a transposed index picks "
          "self[i][index[i][j]] with the kernel's index math", "[cuda_index]") {
  // self (3, 4) as the transpose of a (4, 3) grid: self[i][j] = 10 * j + i.
  const Tensor self = grid(4, 3).t();
  // index (3, 2) with strides (1, 3): index[i][j] = idx_t[j][i].
  const Tensor index = tensor({{3, 0, 2}, {1, 1, 0}}, kLong).t();
  const Tensor out = empty({3, 2}, kDouble);
  const cuda::IndexLaunch l = cuda::plan_gather("gather", out, self, 1, index);
  CHECK(l.indexed_size == 4);
  CHECK(l.indexed_stride == self.stride(1));
  CHECK(gather_as_the_kernel_does(l, out, self, index).empty());
  // out[i][j] = self[i][index[i][j]] = 10 * index[i][j] + i.
  require_values(out, {30, 10, 1, 11, 22, 2});
}

TEST_CASE("cuda index plan: gather along dim 0 of a sliced self", "[cuda_index]") {
  const Tensor self = grid(6, 3).slice(0, 0, 6, 2);  // rows 0, 2, 4: self[i][j] = 20 i + j
  const Tensor index = tensor({{2, 0, 1}, {0, 0, 2}}, kLong);
  const Tensor out = empty({2, 3}, kDouble);
  const cuda::IndexLaunch l = cuda::plan_gather("gather", out, self, 0, index);
  CHECK(gather_as_the_kernel_does(l, out, self, index).empty());
  require_values(out, {40, 1, 22, 0, 1, 42});
}

TEST_CASE("cuda index plan: index_select broadcasts the 1-d index over the other dims",
          "[cuda_index]") {
  const Tensor self = grid(3, 4);
  // A sliced index: {3, 3, 0} at stride 2, with repeats.
  const Tensor index = tensor({3, 9, 3, 9, 0}, kLong).slice(0, 0, 5, 2);
  const Tensor out = empty({3, 3}, kDouble);
  const cuda::IndexLaunch l = cuda::plan_index_select("index_select", out, self, 1, index);
  // The index's geometry steps only along dim 1, by its own stride 2.
  CHECK(l.geometry.ndim == 2);
  CHECK(l.geometry.strides[cuda::kIndexOperand][0] == 0);
  CHECK(l.geometry.strides[cuda::kIndexOperand][1] == 2);
  CHECK(gather_as_the_kernel_does(l, out, self, index).empty());
  require_values(out, {3, 3, 0, 13, 13, 10, 23, 23, 20});
}

TEST_CASE("cuda index plan: scatter_add adds every src element at its index, repeats summed, "
          "src larger than index ignored beyond it", "[cuda_index]") {
  const Tensor self = zeros({2, 3}, kDouble);
  const Tensor index = tensor({{0, 0}, {2, 1}}, kLong);                  // (2, 2)
  const Tensor src = tensor({{1., 2., 100.}, {3., 4., 100.}}, kDouble);  // (2, 3)
  const cuda::IndexLaunch l = cuda::plan_scatter_add("scatter_add", self, 1, index, src);
  scatter_add_as_the_kernel_does(l, src, self, index);
  require_values(self, {3, 0, 0, 0, 4, 3});
}

TEST_CASE("cuda index plan: the indexed operand has stride 0 at dim, so dense operands keep "
          "one dim on each side of it", "[cuda_index]") {
  const Tensor self = empty({4, 5, 6}, kDouble), index = zeros({4, 7, 6}, kLong);
  const Tensor out = empty({4, 7, 6}, kDouble);
  const cuda::IndexLaunch l = cuda::plan_gather("gather", out, self, 1, index);
  REQUIRE(l.geometry.ndim == 3);
  CHECK(l.geometry.sizes[0] == 4);
  CHECK(l.geometry.sizes[1] == 7);
  CHECK(l.geometry.sizes[2] == 6);
  CHECK(l.geometry.strides[cuda::kIndexedOperand][1] == 0);
  CHECK(l.geometry.strides[cuda::kIndexedOperand][0] == 30);
  CHECK(l.indexed_stride == 6);
  CHECK(l.numel == 4 * 7 * 6);
}

TEST_CASE("cuda index plan: the kernel's check catches negative and too-large indices",
          "[cuda_index]") {
  const Tensor self = grid(2, 3), index = tensor({{0, -1}, {3, 2}}, kLong);
  const Tensor out = empty({2, 2}, kDouble);
  const cuda::IndexLaunch l = cuda::plan_gather("gather", out, self, 1, index);
  CHECK(gather_as_the_kernel_does(l, out, self, index) == std::vector<int64_t>{-1, 3});
  require_values(out, {0, 0, 0, 12});  // bad positions get 0, memory untouched
}

TEST_CASE("cuda index plan: more than 6 dims that do not merge is an Error naming the op",
          "[cuda_index]") {
  const Tensor base = empty({2, 2, 2, 2, 2, 2, 2}, kDouble);
  const Tensor p = base.permute({0, 2, 4, 6, 1, 3, 5});
  const Tensor index = zeros(p.sizes(), kLong);
  REQUIRE_THROWS_WITH(cuda::plan_gather("gather", empty(p.sizes(), kDouble), p, 3, index),
                      Catch::Contains("gather: a CUDA indexing op over") &&
                          Catch::Contains("at most 6"));
}

#ifndef EMBER_WITH_CUDA
TEST_CASE("cuda index: without the CUDA backend the table has no CUDA kernels, and asking for "
          "one raises an Error naming the op",
          "[cuda_index]") {
  const Device gpu(kCUDA, 0);
  const char* why = " has no CUDA kernel for a tensor on cuda:0 (ember was built without the "
                    "CUDA backend)";
  REQUIRE_THROWS_WITH(kernels().indexing.gather.on(gpu, "gather"),
                      Catch::Contains(std::string("gather") + why));
  REQUIRE_THROWS_WITH(kernels().indexing.scatter_add.on(gpu, "scatter_add"),
                      Catch::Contains(std::string("scatter_add") + why));
  REQUIRE_NOTHROW(cuda::check_index_errors());
  // The cross-entropy's class-target check shares the report: it has no CUDA
  // kernel either.
  REQUIRE_THROWS_WITH(kernels().cross_entropy.check_targets.on(gpu, "nll_loss"),
                      Catch::Contains(std::string("nll_loss") + why));
}
#endif

TEST_CASE("philox draws: value i of a per-block draw is the stream layout's value i",
          "[cuda_index][random]") {
  const uint64_t seed = 1234567, base = 99;
  for (uint64_t i = 0; i < 40; ++i) {
    const philox::Block b4 = philox::generate(seed, base + i / 4);
    const philox::Block b2 = philox::generate(seed, base + i / 2);
    const philox::Block b1 = philox::generate(seed, base + i);
    CHECK(philox::UniformDraw<float>{0, 1}(b4, int(i % 4)) ==
          philox::uniform_float(seed, base, i));
    CHECK(philox::UniformDraw<double>{0, 1}(b2, int(i % 2)) ==
          philox::uniform_double(seed, base, i));
    CHECK(philox::NormalDraw<double>{0, 1}(b1, 0) == philox::normal(seed, base, i));
    CHECK(philox::RandintDraw<int64_t>{-5, 1000}(b2, int(i % 2)) ==
          -5 + int64_t(philox::bits64(seed, base, i) % 1000));
    const float u = philox::uniform_float(seed, base, i);
    CHECK(philox::DropoutMaskDraw<double>{0.7f, 2.5}(b4, int(i % 4)) == (u < 0.7f ? 2.5 : 0.0));
  }
  CHECK(philox::blocks_for<philox::UniformDraw<float>>(9) == 3);
  CHECK(philox::blocks_for<philox::UniformDraw<double>>(9) == 5);
  CHECK(philox::blocks_for<philox::NormalDraw<float>>(9) == 9);
  CHECK(philox::blocks_for<philox::RandintDraw<int64_t>>(0) == 0);
}

TEST_CASE("range functors: arange and linspace values", "[cuda_index]") {
  CHECK(functors::ArangeInt<int64_t>{-3, 4}(5) == 17);
  CHECK(functors::ArangeFloat<double>{0.5, 0.25}(6) == 2.0);
  CHECK(functors::Linspace<double>{-1, 1, 5}(3) == 0.5);
  CHECK(functors::Linspace<double>{2, 7, 1}(0) == 2.0);
  CHECK(functors::Linspace<double>{0, 1, 3}(2) == 1.0);  // the end exactly
}

#ifndef EMBER_WITH_CUDA
TEST_CASE("cuda random and factory fills: without the CUDA backend a CUDA option raises",
          "[cuda_index]") {
  REQUIRE_THROWS_WITH(rand({3}, TensorOptions().device(Device(kCUDA))),
                      Catch::Contains("CUDA"));
  REQUIRE_THROWS_WITH(arange(5, TensorOptions(kLong).device(Device(kCUDA))),
                      Catch::Contains("CUDA"));
}
#endif
