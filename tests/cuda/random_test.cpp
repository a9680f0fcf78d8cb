// The random ops on CUDA tensors (kernels/cuda/random.{h,cpp,cu}) against the
// same ops on the CPU: one seed must give the same values on both devices
// (the shared per-block Philox draws) and advance both generators alike.
// Tolerances: float32 uniforms and all integers bit for bit; float64
// uniform_(from, to) exact too (the affine step is rounded the same on both
// sides); normals within 1e-6 (float32) / 1e-12 (float64) relative, since
// the device's log and cos may differ from glibc's in the last bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include <ember/ember.h>
#include <ember/kernels/cuda/random.h>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

uint64_t fresh_seed() { return std::random_device{}(); }

// Odd and edge sizes: empty, under one Philox block, exactly one, across a
// block boundary, and more than 65535 * 256 blocks' worth (the grid-stride loop).
const std::vector<int64_t> kSizes = {0, 1, 3, 4, 5, 31, 1025, 4097, 65535LL * 256 * 4 + 7};

// |got - want| <= tol * (1 + |want|) everywhere; tol 0 asks for equality.
void require_match(const Tensor& got, const Tensor& want, double tol) {
  check_each(got, want,
             [tol](double g, double w) { return std::abs(g - w) <= tol * (1 + std::abs(w)); });
}

const Generator& gpu_generator() { return default_generator(kGpu); }

}  // namespace

TEST_CASE("cuda random: rand on the device equals rand on the CPU bit for bit",
          "[cuda][random][cuda_index]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (int64_t n : kSizes) {
    CAPTURE(n);
    manual_seed(seed);
    const Tensor want32 = rand({n}), want64 = rand({n}, kDouble);
    manual_seed(seed);
    const Tensor got32 = rand({n}, TensorOptions().device(kGpu));
    const Tensor got64 = rand({n}, TensorOptions(kDouble).device(kGpu));
    require_match(got32, want32, 0);
    require_match(got64, want64, 0);
    CHECK(gpu_generator().offset() == default_generator().offset());
  }
}

TEST_CASE("cuda random: uniform_(from, to) and normal_ on contiguous and transposed tensors "
          "match the CPU", "[cuda][random][cuda_index]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (ScalarType t : {kFloat, kDouble}) {
    CAPTURE(t);
    manual_seed(seed);
    Tensor cpu = empty({31, 33}, t), cpu_t = empty({33, 31}, t).t();
    cpu.uniform_(-2.5, 3.0);
    cpu_t.uniform_(-1, 1);
    Tensor cpu_n = empty({1025}, t);
    cpu_n.normal_(1.5, 0.25);
    manual_seed(seed);
    Tensor gpu = empty({31, 33}, TensorOptions(t).device(kGpu));
    Tensor gpu_t = empty({33, 31}, TensorOptions(t).device(kGpu)).t();
    const auto v = gpu_t._version();
    gpu.uniform_(-2.5, 3.0);
    gpu_t.uniform_(-1, 1);
    CHECK(gpu_t._version() == v + 1);
    Tensor gpu_n = empty({1025}, TensorOptions(t).device(kGpu));
    gpu_n.normal_(1.5, 0.25);
    require_match(gpu, cpu, 0);
    require_match(gpu_t, cpu_t, 0);
    require_match(gpu_n, cpu_n, t == kFloat ? 1e-6 : 1e-12);
  }
}

TEST_CASE("cuda random: randn on the device matches randn on the CPU within 1e-6",
          "[cuda][random][cuda_index]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (int64_t n : kSizes) {
    CAPTURE(n);
    manual_seed(seed);
    const Tensor want32 = randn({n}), want64 = randn({n}, kDouble);
    manual_seed(seed);
    require_match(randn({n}, TensorOptions().device(kGpu)), want32, 1e-6);
    require_match(randn({n}, TensorOptions(kDouble).device(kGpu)), want64, 1e-12);
    CHECK(gpu_generator().offset() == default_generator().offset());
  }
}

TEST_CASE("cuda random: randint, bernoulli and randperm on the device equal the CPU's exactly",
          "[cuda][random][cuda_index]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (int64_t n : {0, 1, 31, 1025}) {
    CAPTURE(n);
    manual_seed(seed);
    const Tensor a = randint(-7, 1000003, {n}), b = randint(5, {n, 3}, kDouble);
    const Tensor p = rand({n, 2}, kDouble), coin = bernoulli(p);
    const Tensor perm = randperm(n);
    manual_seed(seed);
    require_match(randint(-7, 1000003, {n}, TensorOptions(kLong).device(kGpu)), a, 0);
    require_match(randint(5, {n, 3}, TensorOptions(kDouble).device(kGpu)), b, 0);
    const Tensor pg = rand({n, 2}, TensorOptions(kDouble).device(kGpu));
    require_match(pg, p, 0);
    require_match(bernoulli(pg), coin, 0);
    // randperm shuffles on the host with the device generator's draw, then copies.
    require_match(randperm(n, TensorOptions(kLong).device(kGpu)), perm, 0);
    CHECK(gpu_generator().offset() == default_generator().offset());
  }
}

TEST_CASE("cuda random: each fill advances the device generator by the blocks it read",
          "[cuda][random][cuda_index]") {
  manual_seed(7);
  const Generator& gen = gpu_generator();
  (void)rand({10}, TensorOptions().device(kGpu));             // 4 values per block
  CHECK(gen.offset() == 3);
  (void)rand({10}, TensorOptions(kDouble).device(kGpu));      // 2 values per block
  CHECK(gen.offset() == 8);
  (void)randn({10}, TensorOptions(kDouble).device(kGpu));     // 1 value per block
  CHECK(gen.offset() == 18);
  (void)randint(3, {10}, TensorOptions(kLong).device(kGpu));  // 2 values per block
  CHECK(gen.offset() == 23);
  (void)randn({0}, TensorOptions().device(kGpu));             // empty: reads nothing
  CHECK(gen.offset() == 23);
  CHECK(default_generator().offset() == 0);  // the CPU generator is untouched
}

TEST_CASE("cuda random: bad arguments raise an Error naming the op",
          "[cuda][random][cuda_index]") {
  Tensor x = empty({4}, TensorOptions(kDouble).device(kGpu));
  REQUIRE_THROWS_WITH(x.uniform_(1, 0), Catch::Contains("uniform_: from (1) must be <= to (0)"));
  REQUIRE_THROWS_WITH(x.normal_(0, -1), Catch::Contains("normal_: std must be non-negative, got -1"));
  Tensor i = empty({4}, TensorOptions(kLong).device(kGpu));
  REQUIRE_THROWS_WITH(i.uniform_(0, 1), Catch::Contains("uniform_: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(randint(3, 3, {2}, TensorOptions(kLong).device(kGpu)),
                      Catch::Contains("randint: low (3) must be less than high (3)"));
  REQUIRE_THROWS_WITH(randint(3, {2}, TensorOptions(kBool).device(kGpu)),
                      Catch::Contains("randint: dtype bool is not supported"));
}

TEST_CASE("cuda random: in-place samplers on sliced device views fill in the CPU's order and "
          "bump the version once", "[cuda][random][cuda_index]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (ScalarType t : {kFloat, kDouble}) {
    CAPTURE(t);
    manual_seed(seed);
    Tensor cpu = zeros({40, 31}, t);
    cpu.slice(0, 1, 40, 3).normal_(-1, 2);
    cpu.slice(1, 0, 31, 2).uniform_(0.1, 0.7);
    manual_seed(seed);
    Tensor gpu = zeros({40, 31}, TensorOptions(t).device(kGpu));
    const auto v = gpu._version();
    gpu.slice(0, 1, 40, 3).normal_(-1, 2);
    gpu.slice(1, 0, 31, 2).uniform_(0.1, 0.7);
    CHECK(gpu._version() == v + 2);  // one per sampler, views share the counter
    require_match(gpu, cpu, t == kFloat ? 1e-6 : 1e-12);
    require_match(gpu.slice(1, 0, 31, 2), cpu.slice(1, 0, 31, 2), 0);  // uniforms exact
    CHECK(gpu_generator().offset() == default_generator().offset());
  }
  manual_seed(seed);
  const Tensor want = randint(-3, 9, {1025}, kFloat);
  manual_seed(seed);
  require_match(randint(-3, 9, {1025}, TensorOptions(kFloat).device(kGpu)), want, 0);
}
