// kernels/cuda/random.cu against the CPU ops of core/ops/random.cpp: one seed
// must give the same values on both devices (the shared Philox stream layout).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cmath>
#include <iomanip>
#include <random>
#include <vector>

#include <ember/ember.h>
#include <ember/kernels/cuda/random.h>

namespace {

// n values of T in device memory, freed on scope exit.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(int64_t n) : n_(n) {
    if (n > 0) REQUIRE(cudaMalloc(&ptr_, sizeof(T) * n) == cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<size_t>(n_));
    if (n_ > 0) REQUIRE(cudaMemcpy(host.data(), ptr_, sizeof(T) * n_, cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }

 private:
  void* ptr_ = nullptr;
  int64_t n_;
};

template <typename T>
std::vector<T> host_values(const ember::Tensor& t) {
  const ember::Tensor c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

uint64_t fresh_seed() { return std::random_device{}(); }

// Odd and edge sizes: under one Philox block, exactly one, across a block
// boundary, and more than one grid-stride pass would need with few blocks.
const std::vector<int64_t> kSizes = {1, 3, 4, 5, 1023, 4097, (1 << 20) + 7};

// Fails at the first element where |got - want| > tol * (1 + |want|); tol 0 asks for equality.
// (One check for the whole vector: a REQUIRE per element is slow on a million of them.)
template <typename T>
void require_match(const std::vector<T>& got, const std::vector<T>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::abs(g - w) > tol * (1 + std::abs(w))) {
      FAIL("element " << i << ": device " << std::setprecision(17) << g << ", cpu " << w);
    }
  }
}

}  // namespace

TEST_CASE("cuda random: rand on the device equals ember::rand on the CPU bit for bit", "[cuda][random]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (int64_t n : kSizes) {
    CAPTURE(n);
    ember::manual_seed(seed);
    const auto want32 = host_values<float>(ember::rand({n}));
    const auto want64 = host_values<double>(ember::rand({n}, ember::kDouble));

    ember::manual_seed(seed);
    DeviceBuffer<float> got32(n);
    DeviceBuffer<double> got64(n);
    ember::cuda::fill_uniform(got32.get(), ember::kFloat, n, 0, 1);
    ember::cuda::fill_uniform(got64.get(), ember::kDouble, n, 0, 1);
    require_match(got32.to_host(), want32, 0);
    require_match(got64.to_host(), want64, 0);
  }
}

TEST_CASE("cuda random: uniform_(from, to) on the device matches the CPU", "[cuda][random]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  const int64_t n = 10007;
  ember::manual_seed(seed);
  ember::Tensor cpu = ember::empty({n}, ember::kDouble);
  cpu.uniform_(-2.5, 3.0);
  ember::manual_seed(seed);
  DeviceBuffer<double> dev(n);
  ember::cuda::fill_uniform(dev.get(), ember::kDouble, n, -2.5, 3.0);
  // A fused multiply-add on one side may move the last bit.
  require_match(dev.to_host(), host_values<double>(cpu), 1e-14);
}

TEST_CASE("cuda random: randn on the device matches ember::randn on the CPU", "[cuda][random]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  for (int64_t n : kSizes) {
    CAPTURE(n);
    ember::manual_seed(seed);
    const auto want32 = host_values<float>(ember::randn({n}));
    ember::Tensor cpu64 = ember::empty({n}, ember::kDouble);
    cpu64.normal_(1.5, 0.25);

    ember::manual_seed(seed);
    DeviceBuffer<float> got32(n);
    DeviceBuffer<double> got64(n);
    ember::cuda::fill_normal(got32.get(), ember::kFloat, n, 0, 1);
    ember::cuda::fill_normal(got64.get(), ember::kDouble, n, 1.5, 0.25);
    // log and cos of the device's maths library may differ from glibc's in the last bit.
    require_match(got32.to_host(), want32, 1e-6);
    require_match(got64.to_host(), host_values<double>(cpu64), 1e-12);
  }
}

TEST_CASE("cuda random: each fill advances the device generator by the blocks it read", "[cuda][random]") {
  ember::manual_seed(7);
  int device = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  const ember::Generator& gen = ember::default_generator(ember::Device(ember::kCUDA, device));
  DeviceBuffer<double> buf(10);
  ember::cuda::fill_uniform(buf.get(), ember::kFloat, 10, 0, 1);   // 4 values per block
  REQUIRE(gen.offset() == 3);
  ember::cuda::fill_uniform(buf.get(), ember::kDouble, 10, 0, 1);  // 2 values per block
  REQUIRE(gen.offset() == 8);
  ember::cuda::fill_normal(buf.get(), ember::kDouble, 10, 0, 1);   // 1 value per block
  REQUIRE(gen.offset() == 18);
  ember::cuda::fill_normal(nullptr, ember::kFloat, 0, 0, 1);        // empty: reads nothing
  REQUIRE(gen.offset() == 18);
}

TEST_CASE("cuda random: bad arguments raise an Error naming the op", "[cuda][random]") {
  DeviceBuffer<double> buf(4);
  REQUIRE_THROWS_WITH(ember::cuda::fill_uniform(buf.get(), ember::kDouble, 4, 1, 0),
                      Catch::Contains("uniform_: from (1) must be <= to (0)"));
  REQUIRE_THROWS_WITH(ember::cuda::fill_normal(buf.get(), ember::kDouble, 4, 0, -1),
                      Catch::Contains("normal_: std must be non-negative, got -1"));
  REQUIRE_THROWS_WITH(ember::cuda::fill_uniform(buf.get(), ember::kLong, 4, 0, 1),
                      Catch::Contains("uniform_: dtype int64 is not supported"));
}
