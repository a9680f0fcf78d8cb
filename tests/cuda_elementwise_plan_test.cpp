// The device-independent half of the CUDA elementwise ops, checked on the CPU:
// the merged geometry and index math the index kernel walks, the vector-path
// rule, and which path plan_elementwise picks for CPU tensors laid out as a
// CUDA op's operands would be. With a device, tests/cuda/elementwise_test.cpp
// checks the kernels against the CPU ops.
#include <catch2/catch.hpp>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/kernels/common/cuda_plans/elementwise_launch.h>

#include <vector>

#include "test_helpers.h"

using namespace ember;

namespace {

// The geometry as {sizes..., then each operand's strides...}.
std::vector<int64_t> flat(const cuda::ElementwiseGeometry& g, int operands) {
  std::vector<int64_t> out(g.sizes, g.sizes + g.ndim);
  for (int k = 0; k < operands; ++k) out.insert(out.end(), g.strides[k], g.strides[k] + g.ndim);
  return out;
}

cuda::ElementwiseGeometry geometry_of(const Tensor& out, const Tensor& a, const Tensor& b) {
  const IntArrayRef sizes[] = {a.sizes(), b.sizes()}, strides[] = {a.strides(), b.strides()};
  return cuda::make_elementwise_geometry("add", out.sizes(), out.strides(), sizes, strides, 2);
}

// What the index kernel does, on the CPU with the same index math:
// out[i] = a[i] + 10 * b[i] over out's shape, float64 CPU tensors.
void add_as_the_kernel_does(const Tensor& out, const Tensor& a, const Tensor& b) {
  const cuda::ElementwiseGeometry g = geometry_of(out, a, b);
  double* o = out.data_ptr<double>();
  const double *pa = a.data_ptr<double>(), *pb = b.data_ptr<double>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t off[3];
    cuda::operand_offsets(g, i, off);
    o[off[0]] = pa[off[1]] + 10 * pb[off[2]];
  }
}

}  // namespace

TEST_CASE("cuda elementwise geometry: dense operands of one shape merge into one dim",
          "[cuda_elementwise]") {
  const Tensor out = empty({4, 5, 6}, kDouble), a = empty({4, 5, 6}, kDouble);
  CHECK(flat(geometry_of(out, a, a), 3) == std::vector<int64_t>{120, 1, 1, 1});
}

TEST_CASE("cuda elementwise geometry: a broadcast row and a transposed input keep their own "
          "strides, a broadcast dim has stride 0", "[cuda_elementwise]") {
  const Tensor out = empty({3, 4}, kDouble);
  const Tensor row = empty({4}, kDouble);      // broadcast over rows
  const Tensor t = empty({4, 3}, kDouble).t();  // (3, 4) with strides (1, 3)
  CHECK(flat(geometry_of(out, row, t), 3) == std::vector<int64_t>{3, 4, 4, 1, 0, 1, 1, 3});
}

TEST_CASE("cuda elementwise geometry: more than 6 unmergeable dims is an Error naming the op",
          "[cuda_elementwise]") {
  // Every dim of a size-2^7 tensor permuted so no neighbours merge.
  const Tensor base = empty({2, 2, 2, 2, 2, 2, 2}, kDouble);
  const Tensor p = base.permute({0, 2, 4, 6, 1, 3, 5});
  const Tensor out = empty(p.sizes(), kDouble);
  REQUIRE_THROWS_WITH(geometry_of(out, p, p),
                      Catch::Contains("add: a CUDA elementwise op over 7 dims") &&
                          Catch::Contains("at most 6"));
}

TEST_CASE("cuda elementwise geometry: the index math reproduces the CPU op on transposed, "
          "sliced and broadcast operands", "[cuda_elementwise]") {
  const Tensor a = randn({5, 7}, kDouble).t();                            // (7, 5), strided
  const Tensor b = randn({3, 1, 10}, kDouble).slice(2, 1, 10, 2);          // (3, 1, 5), sliced
  const Tensor out = empty({3, 7, 5}, kDouble);
  add_as_the_kernel_does(out, a, b);
  ember_test::require_values(out, ember_test::values(a + b * 10));
  // A transposed output (an in-place op on a view) is written where it points.
  const Tensor base = zeros({5, 7}, kDouble);
  add_as_the_kernel_does(base.t(), a, zeros({1}, kDouble));
  ember_test::require_values(base.t(), ember_test::values(a));
}

TEST_CASE("cuda elementwise: 16 bytes of the widest operand per vector access, aligned to "
          "its bytes", "[cuda_elementwise]") {
  CHECK(cuda::vector_width(4) == 4);   // float32
  CHECK(cuda::vector_width(8) == 2);   // float64 / int64
  CHECK(cuda::vector_width(1) == 16);  // bool
  CHECK(cuda::vector_aligned(0x1000, 4, 4));
  CHECK_FALSE(cuda::vector_aligned(0x1004, 4, 4));
  CHECK(cuda::vector_aligned(0x1004, 1, 4));  // bool next to float32: 4-byte chunks
  CHECK_FALSE(cuda::vector_aligned(0x1002, 1, 4));
}

TEST_CASE("cuda elementwise: plan_elementwise takes the vector path only for dense aligned "
          "operands of out's shape or one-element scalars", "[cuda_elementwise]") {
  const Tensor out = empty({1025}), a = randn({1025}), b = randn({1025});
  CHECK(cuda::plan_elementwise("add", out, {&a, &b}).vectorized);
  const Tensor scalar = full({}, 2.0);
  const cuda::ElementwiseLaunch with_scalar = cuda::plan_elementwise("add", out, {&a, &scalar});
  CHECK(with_scalar.vectorized);
  CHECK(with_scalar.input_is_scalar[1]);
  CHECK_FALSE(with_scalar.input_is_scalar[0]);
  // Offset by one float: dense but misaligned, so the index path over one merged dim.
  const Tensor shifted = randn({1026}).slice(0, 1, 1026);
  const cuda::ElementwiseLaunch misaligned = cuda::plan_elementwise("add", out, {&shifted, &b});
  CHECK_FALSE(misaligned.vectorized);
  CHECK(misaligned.geometry.ndim == 1);
  // Transposed and broadcast operands: the index path.
  const Tensor m = empty({8, 4}), t = randn({4, 8}).t(), row = randn({4});
  CHECK_FALSE(cuda::plan_elementwise("mul", m, {&t, &t}).vectorized);
  CHECK_FALSE(cuda::plan_elementwise("mul", m, {&row, &row}).vectorized);
  // Mixed dtypes: where's bool condition next to float64 values.
  const Tensor cond = randn({1025}).gt(0);
  const Tensor x = randn({1025}, kDouble), y = empty({1025}, kDouble);
  const cuda::ElementwiseLaunch w = cuda::plan_elementwise("where", y, {&cond, &x, &x});
  CHECK(w.num_inputs == 3);
  CHECK(w.input_dtypes[0] == kBool);
  CHECK(w.out_dtype == kDouble);
}

#ifndef EMBER_WITH_CUDA  // a CUDA build launches instead
// A float32 tensor labelled cuda:0 over host memory: no CUDA allocation, so an
// in-place op on it reaches the kernel table's lookup, which finds no CUDA
// kernel in this build.
Tensor cuda_labelled(std::vector<float>& host) {
  auto storage = std::make_shared<StorageImpl>(host.data(), host.size() * sizeof(float),
                                               Device(kCUDA, 0), nullptr);
  const int64_t n = static_cast<int64_t>(host.size());
  return Tensor(std::make_shared<TensorImpl>(storage, 0, DimVector{n}, DimVector{1}, kFloat));
}

TEST_CASE("cuda elementwise: in-place ops on a CUDA tensor dispatch to the CUDA kernels, not "
          "the CPU loop", "[cuda_elementwise]") {
  std::vector<float> a_host(4, 1.0f), b_host(4, 2.0f);
  Tensor a = cuda_labelled(a_host);
  const Tensor b = cuda_labelled(b_host);
  // One matcher, returned by value (a matcher made with && keeps references
  // to its parts, which would not outlive the lambda).
  const auto no_kernel = [](const char* op) {
    return Catch::Contains(std::string(op) +
                           " has no CUDA kernel for a tensor on cuda:0 (ember was built without "
                           "the CUDA backend)");
  };
  REQUIRE_THROWS_WITH(a.add_(b), no_kernel("add_"));
  REQUIRE_THROWS_WITH(a.mul_(b), no_kernel("mul_"));
  REQUIRE_THROWS_WITH(a.relu_(), no_kernel("relu_"));
  REQUIRE_THROWS_WITH(a.clamp_(0, 1), no_kernel("clamp_"));
  CHECK(a_host == std::vector<float>(4, 1.0f));  // the CPU loop never ran on it
  CHECK(a._version() == 0);
}
#endif
