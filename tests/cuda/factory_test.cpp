// The factories on CUDA options against the same factories on the CPU:
// zeros / ones / full (device fills), arange and linspace (the range kernel
// of kernels/cuda/factory.cu with the CPU's functors), eye (a strided fill of
// the diagonal), tensor({...}) (one host->device copy). All exact: both
// devices compute each element with the same separately rounded operations.
// Also cat / stack of CUDA tensors (views.cpp, through copy_) and their
// gradients.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

TensorOptions on_gpu(ScalarType t) { return TensorOptions(t).device(kGpu); }

}  // namespace

TEST_CASE("cuda factory: zeros, ones, full and eye fill on the device as on the CPU",
          "[cuda][cuda_index]") {
  for (ScalarType t : {kBool, kLong, kFloat, kDouble}) {
    for (int64_t n : {0, 1, 31, 1025}) {
      INFO(t << ", n " << n);
      check_same(zeros({n, 3}, on_gpu(t)), zeros({n, 3}, t));
      check_same(ones({n}, on_gpu(t)), ones({n}, t));
      check_same(full({3, n}, 7, on_gpu(t)), full({3, n}, 7, t));
      check_same(eye(n, on_gpu(t)), eye(n, t));
    }
  }
  const Tensor z = zeros({4}, on_gpu(kFloat).requires_grad(true));
  CHECK(z.requires_grad());
}

TEST_CASE("cuda factory: arange matches the CPU for integer and floating ranges and dtypes",
          "[cuda][cuda_index]") {
  check_same(arange(0, on_gpu(kLong)), arange(0, kLong));
  check_same(arange(1025, TensorOptions().device(kGpu)), arange(1025));  // int64 inferred
  check_same(arange(-7, 40, 3, TensorOptions().device(kGpu)), arange(-7, 40, 3));
  check_same(arange(10, -10, -3, on_gpu(kDouble)), arange(10, -10, -3, kDouble));
  check_same(arange(0.1, 3.3, 0.1, TensorOptions().device(kGpu)), arange(0.1, 3.3, 0.1));
  check_same(arange(0.1, 3.3, 0.1, on_gpu(kDouble)), arange(0.1, 3.3, 0.1, kDouble));
  const int64_t big = 65535LL * 256 + 17;  // the grid-stride loop
  check_same(arange(big, on_gpu(kLong)), arange(big, kLong));
  check_same(arange(0.0, big * 0.5, 0.5, on_gpu(kDouble)), arange(0.0, big * 0.5, 0.5, kDouble));
  REQUIRE_THROWS_WITH(arange(0, 5, 0, on_gpu(kLong)), Catch::Contains("arange: step must be nonzero"));
}

TEST_CASE("cuda factory: linspace matches the CPU, ends included", "[cuda][cuda_index]") {
  for (int64_t steps : {0, 1, 2, 31, 1025}) {
    INFO("steps " << steps);
    for (ScalarType t : {kFloat, kDouble, kLong}) {
      check_same(linspace(-3.5, 11.25, steps, on_gpu(t)), linspace(-3.5, 11.25, steps, t));
    }
  }
  const Tensor l = linspace(0, 1, 7, on_gpu(kDouble)).cpu();
  CHECK(l.data_ptr<double>()[6] == 1.0);
}

TEST_CASE("cuda factory: tensor({...}) with a CUDA option copies the host values once",
          "[cuda][cuda_index]") {
  const Tensor t = tensor({{1.5, 2.0}, {-3.0, 4.25}}, on_gpu(kDouble));
  check_same(t, tensor({{1.5, 2.0}, {-3.0, 4.25}}, kDouble));
  check_same(tensor({1, 2, 3}, TensorOptions().device(kGpu)), tensor({1, 2, 3}));
}

TEST_CASE("cuda cat/stack: CUDA tensors join on the device, with dtype promotion and "
          "transposed inputs, and the gradients split back", "[cuda][cuda_index]") {
  for (int64_t n : {0, 1, 31, 1025}) {
    INFO("n " << n);
    const Tensor a = randn({n, 3}, kDouble), b = randn({2, 3}, kDouble);
    const Tensor c = randn({3, n}, kFloat).t();  // (n, 3) transposed, float32
    check_same(cat({a.to(kGpu), b.to(kGpu), c.to(kGpu)}, 0), cat({a, b, c}, 0));
    check_same(cat({a.to(kGpu), c.to(kGpu)}, 1), cat({a, c}, 1));
    check_same(stack({a.to(kGpu), a.to(kGpu)}, 1), stack({a, a}, 1));
  }
  const Tensor a0 = randn({31, 4}, kDouble), b0 = randn({5, 4}, kDouble);
  const Tensor g = randn({36, 4}, kDouble);
  const Tensor a = a0.to(kGpu).requires_grad_(), b = b0.to(kGpu).requires_grad_();
  cat({a, b}, 0).backward(g.to(kGpu));
  check_same(a.grad(), g.narrow(0, 0, 31));
  check_same(b.grad(), g.narrow(0, 31, 5));
  REQUIRE_THROWS_WITH(cat({a0, b0.to(kGpu)}, 0),
                      Catch::Contains("cat: tensor 1 is on cuda") &&
                          Catch::Contains("but tensor 0 is on cpu"));
}
