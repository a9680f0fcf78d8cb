// The Tensor handle, metadata, factories, dtypes and conversions.
#include "test_helpers.h"

#include <ember/core/shape.h>

#include <limits>

using namespace ember;
using ember_test::values;

TEST_CASE("a Tensor is a handle: copies alias, clone copies", "[tensor]") {
  Tensor a = zeros({2, 3});
  Tensor b = a;
  b.fill_(7);
  REQUIRE(values(a) == std::vector<double>(6, 7.0));
  Tensor c = a.clone();
  c.fill_(1);
  REQUIRE(values(a) == std::vector<double>(6, 7.0));
  REQUIRE_FALSE(c.is_alias_of(a));
  REQUIRE(b.is_same(a));
}

TEST_CASE("metadata: sizes, strides, numel, dim, element size", "[tensor]") {
  Tensor t = empty({2, 3, 4}, kDouble);
  REQUIRE(t.sizes() == IntArrayRef{2, 3, 4});
  REQUIRE(t.strides() == IntArrayRef{12, 4, 1});
  REQUIRE(t.numel() == 24);
  REQUIRE(t.dim() == 3);
  REQUIRE(t.size(-1) == 4);
  REQUIRE(t.stride(0) == 12);
  REQUIRE(t.element_size() == 8);
  REQUIRE(t.nbytes() == 192);
  REQUIRE(t.is_contiguous());
  REQUIRE(t.scalar_type() == kFloat64);
  REQUIRE(t.device() == Device(kCPU));
  REQUIRE_THROWS_WITH(t.size(3), Catch::Contains("dimension 3 out of range for a 3-d tensor"));
}

TEST_CASE("factories fill the stated values", "[tensor]") {
  REQUIRE(values(zeros({3})) == std::vector<double>{0, 0, 0});
  REQUIRE(values(ones({2}, kInt64)) == std::vector<double>{1, 1});
  REQUIRE(ones({2}, kInt64).scalar_type() == kInt64);
  REQUIRE(values(full({2, 2}, 2.5)) == std::vector<double>{2.5, 2.5, 2.5, 2.5});
  REQUIRE(values(arange(5)) == std::vector<double>{0, 1, 2, 3, 4});
  REQUIRE(arange(5).scalar_type() == kInt64);
  REQUIRE(values(arange(1, 2, 0.25)) == std::vector<double>{1, 1.25, 1.5, 1.75});
  REQUIRE(arange(1, 2, 0.25).scalar_type() == kFloat32);
  REQUIRE(values(arange(10, 0, -3)) == std::vector<double>{10, 7, 4, 1});
  REQUIRE(values(linspace(0, 1, 5, kDouble)) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  REQUIRE(values(eye(2)) == std::vector<double>{1, 0, 0, 1});
  Tensor like = zeros_like(empty({4, 5}, kDouble));
  REQUIRE(like.sizes() == IntArrayRef{4, 5});
  REQUIRE(like.scalar_type() == kDouble);
  REQUIRE(values(ones_like(like)).front() == 1.0);
  REQUIRE(empty_like(like).sizes() == like.sizes());
  REQUIRE(zeros({0, 3}).numel() == 0);
  REQUIRE_THROWS_WITH(empty({2, -1}), Catch::Contains("negative size"));
}

TEST_CASE("ember::tensor infers dtype and shape from nested lists", "[tensor]") {
  Tensor f = tensor({{1.0, 2.0}, {3.0, 4.0}});
  REQUIRE(f.sizes() == IntArrayRef{2, 2});
  REQUIRE(f.scalar_type() == kFloat32);
  REQUIRE(values(f) == std::vector<double>{1, 2, 3, 4});
  REQUIRE(tensor({1, 2, 3}).scalar_type() == kInt64);
  REQUIRE(tensor({true, false}).scalar_type() == kBool);
  REQUIRE(tensor(3.5).dim() == 0);
  REQUIRE(tensor({1, 2}, kDouble).scalar_type() == kDouble);
  REQUIRE(values(tensor(std::vector<double>{0.5, 1.5})) == std::vector<double>{0.5, 1.5});
  REQUIRE_THROWS_WITH(tensor({{1.0, 2.0}, {3.0}}), Catch::Contains("rectangular"));
  REQUIRE(tensor({1.0}, TensorOptions().requires_grad(true)).requires_grad());
}

TEST_CASE("from_blob wraps caller memory without copying and runs the deleter", "[tensor]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data, {2, 3});
  REQUIRE(t.data_ptr<float>() == data);
  t.fill_(0);
  REQUIRE(data[5] == 0.0f);
  Tensor strided = from_blob(data, {3}, {2});
  REQUIRE(strided.stride(0) == 2);
  bool deleted = false;
  {
    Tensor owned = from_blob(data, {6}, [&](void*) { deleted = true; });
    Tensor alias = owned.view({2, 3});
    owned = Tensor();
    REQUIRE_FALSE(deleted);
  }
  REQUIRE(deleted);
}

TEST_CASE("item returns the single element and refuses other sizes", "[tensor]") {
  REQUIRE(tensor({2.5}).item<float>() == 2.5f);
  REQUIRE(tensor(7).item<int64_t>() == 7);
  REQUIRE(tensor(true).item<bool>());
  const double d = tensor({{4.0}}, kDouble).item();
  REQUIRE(d == 4.0);
  REQUIRE_THROWS_WITH(zeros({2, 3}).item(), Catch::Contains("6 elements (shape [2, 3])"));
  REQUIRE_THROWS_WITH(zeros({0}).item(), Catch::Contains("0 elements"));
}

TEST_CASE("to(dtype) converts values and keeps the tensor when nothing changes", "[tensor]") {
  Tensor f = tensor({1.7, -2.2, 0.0});
  Tensor i = f.to(kInt64);
  REQUIRE(values(i) == std::vector<double>{1, -2, 0});  // truncation, as C++ and PyTorch
  REQUIRE(values(f.to(kBool)) == std::vector<double>{1, 1, 0});
  REQUIRE(f.to(kFloat32).is_same(f));
  REQUIRE_FALSE(f.to(kFloat32, false, /*copy=*/true).is_same(f));
  REQUIRE(f.to(kDouble).scalar_type() == kDouble);
  // tests/cuda/tensor_test.cpp covers the copy where a device exists.
  if (!cuda::is_available()) REQUIRE_THROWS_WITH(f.to(Device(kCUDA)), Catch::Contains("CUDA"));
}

TEST_CASE("dtype promotion follows PyTorch", "[tensor]") {
  REQUIRE(promote_types(kInt64, kFloat32) == kFloat32);
  REQUIRE(promote_types(kFloat32, kFloat64) == kFloat64);
  REQUIRE(promote_types(kBool, kInt64) == kInt64);
  REQUIRE(result_type(ones({2}, kInt64), Scalar(2.5)) == kFloat32);
  REQUIRE(result_type(ones({2}, kFloat32), Scalar(2)) == kFloat32);
  REQUIRE(result_type(ones({2}, kBool), Scalar(2)) == kInt64);
  REQUIRE(result_type(ones({2}, kFloat32), ones({}, kFloat64)) == kFloat32);  // 0-dim: category only
  REQUIRE(result_type(ones({2}, kInt64), ones({}, kFloat64)) == kFloat64);
  REQUIRE(result_type(ones({2}, kFloat32), ones({2}, kFloat64)) == kFloat64);
}

TEST_CASE("TensorOptions and Device parse and print", "[tensor]") {
  TensorOptions o = TensorOptions().dtype(kDouble).requires_grad(true);
  REQUIRE(o.dtype() == kDouble);
  REQUIRE(o.requires_grad());
  REQUIRE(Device("cuda:1").index() == 1);
  REQUIRE(Device("cpu").is_cpu());
  REQUIRE(Device("cuda").str() == "cuda");
  REQUIRE_THROWS_WITH(Device("tpu"), Catch::Contains("unknown device 'tpu'"));
  REQUIRE(zeros({2}, o).requires_grad());
}

TEST_CASE("printing shows values, shape, dtype and device", "[tensor]") {
  std::ostringstream os;
  os << tensor({{1, 2}, {3, 4}});
  REQUIRE(os.str() == "[[1, 2],\n [3, 4]]\n[ int64 [2, 2] on cpu ]");
  std::ostringstream aligned;  // right-aligned to the widest value
  aligned << tensor({{0.5, -12.25}, {3.0, 100.0}});
  REQUIRE(aligned.str() == "[[   0.5, -12.25],\n [     3,    100]]\n[ float32 [2, 2] on cpu ]");
  std::ostringstream scalar;
  scalar << tensor(true);
  REQUIRE(scalar.str() == "true\n[ bool [] on cpu ]");
  std::ostringstream empty_tensor;
  empty_tensor << zeros({0, 2});
  REQUIRE(empty_tensor.str() == "[]\n[ float32 [0, 2] on cpu ]");
  std::ostringstream big;
  big << arange(2000);
  REQUIRE_THAT(big.str(), Catch::Contains("...") && Catch::Contains("[ int64 [2000] on cpu ]"));
  std::ostringstream undefined;
  undefined << Tensor();
  REQUIRE(undefined.str() == "[ Tensor (undefined) ]");
  REQUIRE(zeros({2, 3}).toString() == "float32 tensor [2, 3] on cpu");
}

TEST_CASE("errors on undefined tensors name the problem", "[tensor]") {
  Tensor t;
  REQUIRE_FALSE(t.defined());
  REQUIRE_THROWS_WITH(t.sizes(), Catch::Contains("undefined"));
  REQUIRE_FALSE(t.requires_grad());
}

TEST_CASE("data_ptr checks the requested type", "[tensor]") {
  Tensor t = zeros({2});
  REQUIRE(t.data_ptr<float>() != nullptr);
  REQUIRE_THROWS_WITH(t.data_ptr<double>(), Catch::Contains("dtype float32 but float64 was requested"));
}

TEST_CASE("assigning to a temporary view writes into it; assigning to a name rebinds, as libtorch",
          "[tensor]") {
  Tensor y = zeros({2, 3});
  y[0] = ones({3});
  y[1][2] = 7;
  y.select(1, 0) = tensor({4.0f, 5.0f});
  REQUIRE(ember_test::values(y) == std::vector<double>{4, 1, 1, 5, 0, 7});
  Tensor a = zeros({2});
  const Tensor b = ones({2});
  a = b;  // a named tensor: the handle now aliases b
  REQUIRE(a.is_same(b));
}

TEST_CASE("in-place methods work through const handles, as libtorch's (x.grad().zero_())",
          "[tensor]") {
  Tensor x = ones({2}).requires_grad_();
  (x * 3.0).sum().backward();
  x.grad().zero_();
  REQUIRE(ember_test::values(x.grad()) == std::vector<double>{0, 0});
  const Tensor c = ones({2});
  c.add_(1).mul_(2);
  REQUIRE(ember_test::values(c) == std::vector<double>{4, 4});
}

TEST_CASE("full infers int64 from an integer value and bool from a bool, as libtorch 1.13",
          "[tensor]") {
  REQUIRE(full({2}, 7).scalar_type() == kLong);
  REQUIRE(full({2}, true).scalar_type() == kBool);
  REQUIRE(full({2}, 7.5).scalar_type() == kFloat);
  REQUIRE(full({2}, 7, kDouble).scalar_type() == kDouble);
  REQUIRE(zeros({2}).scalar_type() == kFloat);
  REQUIRE(ones({2}).scalar_type() == kFloat);
  // *_like with options that name no dtype keep the tensor's.
  const Tensor d = zeros({2}, kDouble);
  REQUIRE(full_like(d, 3, TensorOptions()).scalar_type() == kDouble);
  REQUIRE(zeros_like(d, TensorOptions()).scalar_type() == kDouble);
}

TEST_CASE("arange with an integer dtype truncates float bounds and step first, as PyTorch",
          "[tensor]") {
  REQUIRE(values(arange(0, 5, 1.5, kLong)) == std::vector<double>{0, 1, 2, 3, 4});
  REQUIRE(values(arange(5.5, kLong)) == std::vector<double>{0, 1, 2, 3, 4});
  REQUIRE_THROWS_WITH(arange(0, 1, 0.1, kLong), Catch::Contains("arange: step must be nonzero"));
  REQUIRE(values(arange(0, 1, 0.25)) == std::vector<double>{0, 0.25, 0.5, 0.75});
}

TEST_CASE("new_zeros/new_ones/new_full/new_empty take this tensor's dtype; type_as converts",
          "[tensor]") {
  const Tensor d = zeros({1}, kDouble);
  REQUIRE(d.new_zeros({2, 3}).scalar_type() == kDouble);
  REQUIRE(d.new_zeros({2, 3}).sizes() == IntArrayRef({2, 3}));
  REQUIRE(values(d.new_ones({2})) == std::vector<double>{1, 1});
  REQUIRE(values(d.new_full({2}, 7)) == std::vector<double>{7, 7});
  REQUIRE(d.new_full({2}, 7).scalar_type() == kDouble);
  REQUIRE(d.new_empty({4}, kLong).scalar_type() == kLong);
  REQUIRE(tensor({1, 2}, kLong).type_as(d).scalar_type() == kDouble);
}

// ---- conversions and sizes from outside (issue #22) ----

TEST_CASE("item<integer>() of NaN, an infinity or an out-of-range double raises an Error",
          "[tensor]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double v : {nan, inf, -inf, 9223372036854775808.0 /* 2^63 */, 1e300, -1e19}) {
    INFO(v);
    REQUIRE_THROWS_WITH(tensor(v, kDouble).item<int64_t>(),
                        Catch::Contains("Scalar: cannot convert") && Catch::Contains("to int64"));
  }
  // int64 holds [-2^63, 2^63 - 1]: -2^63 is exact in double, and the largest
  // double below 2^63 is 2^63 - 1024.
  REQUIRE(tensor(-9223372036854775808.0, kDouble).item<int64_t>() ==
          std::numeric_limits<int64_t>::min());
  REQUIRE(tensor(9223372036854774784.0, kDouble).item<int64_t>() == 9223372036854774784);
  // Truncation toward zero: int32 takes (-2^31 - 1, 2^31).
  REQUIRE(tensor(2147483647.9, kDouble).item<int32_t>() == 2147483647);
  REQUIRE(tensor(-2147483648.9, kDouble).item<int32_t>() == -2147483647 - 1);
  REQUIRE_THROWS_WITH(tensor(2147483648.0, kDouble).item<int32_t>(), Catch::Contains("to int32"));
  REQUIRE_THROWS_WITH(tensor(-2147483649.0, kDouble).item<int32_t>(), Catch::Contains("to int32"));
  REQUIRE_THROWS_WITH(tensor(-1.0, kDouble).item<uint8_t>(), Catch::Contains("to uint8"));
  REQUIRE(tensor(-0.9, kDouble).item<uint8_t>() == 0);
  REQUIRE(tensor(255.5, kDouble).item<uint8_t>() == 255);
}

TEST_CASE("checked_mul and checked_numel refuse products that overflow", "[tensor]") {
  const int64_t big = int64_t(1) << 40;
  REQUIRE(checked_mul(int64_t(1) << 31, int64_t(1) << 31) == int64_t(1) << 62);
  REQUIRE_FALSE(checked_mul(int64_t(1) << 32, int64_t(1) << 31).has_value());
  REQUIRE_FALSE(checked_mul(std::numeric_limits<int64_t>::min(), int64_t(-1)).has_value());
  REQUIRE(checked_mul(uint64_t(1) << 63, uint64_t(1)) == uint64_t(1) << 63);
  REQUIRE_FALSE(checked_mul(uint64_t(1) << 32, uint64_t(1) << 32).has_value());
  REQUIRE(checked_numel({0, 5, 7}) == 0);
  REQUIRE(checked_numel({3, 5, 7}) == 105);
  // A zero does not absorb the overflow: the strides of [0, 2^40, 2^40] would need 2^80.
  REQUIRE_FALSE(checked_numel({0, big, big}).has_value());
  REQUIRE_FALSE(checked_numel({0, int64_t(1) << 62, 4}).has_value());
  REQUIRE_FALSE(checked_numel({2, -1}).has_value());
}

TEST_CASE("a shape whose strides overflow is an Error, an empty one of fitting sizes works",
          "[tensor]") {
  const int64_t big = int64_t(1) << 40;
  REQUIRE_THROWS_WITH(empty({0, big, big}),
                      Catch::Contains("empty: shape [0, 1099511627776, 1099511627776]") &&
                          Catch::Contains("too large"));
  REQUIRE_THROWS_WITH(empty({0, int64_t(1) << 62, 4}), Catch::Contains("too large"));
  // Elements fit int64 but bytes do not: 2^61 float64 elements are 2^64 bytes.
  REQUIRE_THROWS_WITH(empty({int64_t(1) << 61}, kDouble), Catch::Contains("too large"));
  REQUIRE_THROWS_WITH(contiguous_strides({0, big, big}), Catch::Contains("overflows int64"));
  REQUIRE_THROWS_WITH(compute_numel({0, int64_t(1) << 62, 4}), Catch::Contains("overflows int64"));
  const Tensor e = empty({0, big, 4});  // strides 4 * 2^40, 4, 1 fit
  REQUIRE(e.numel() == 0);
  REQUIRE(e.strides() == IntArrayRef({4 * big, 4, 1}));
}
