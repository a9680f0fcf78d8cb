// Tensors of more than 2^31 elements on the device: each kernel family
// (elementwise, reduce, index, copy) must index them with 64 bits. Known
// patterns are checked cheaply: values at indices around 2^31 and at the
// end, counts by a sum, the position of a planted maximum. Hidden from the
// default run and from memcheck ("[.]"): about 20 GB of device memory and
// seconds each; scripts/gpu-check.sh runs them in their own stage
// (ember_cuda_tests "[huge]").
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cstdint>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

constexpr int64_t k2p31 = int64_t{1} << 31;
// Even (it views as two rows) and past 2^31 by more than a block.
constexpr int64_t kHuge = k2p31 + 2048;

TensorOptions on_gpu(ScalarType t) { return TensorOptions().dtype(t).device(kGpu); }

bool bool_at(const Tensor& t, int64_t i) { return t.select(0, i).item<bool>(); }
float float_at(const Tensor& t, int64_t i) { return t.select(0, i).item<float>(); }

}  // namespace

TEST_CASE("cuda huge: bool fill, logical_not and sum over 2^31 + 2048 elements",
          "[.][huge][cuda]") {
  const Tensor m = zeros({kHuge}, on_gpu(kBool));
  m.narrow(0, k2p31 - 2, 5).fill_(true);  // indices 2^31 - 2 ... 2^31 + 2
  m.select(0, kHuge - 1).fill_(true);
  const Tensor y = logical_not(m);
  CHECK(y.sum().item<int64_t>() == kHuge - 6);
  CHECK(m.sum().item<int64_t>() == 6);
  CHECK(bool_at(y, k2p31 - 3));
  CHECK_FALSE(bool_at(y, k2p31 - 2));
  CHECK_FALSE(bool_at(y, k2p31));
  CHECK_FALSE(bool_at(y, k2p31 + 2));
  CHECK(bool_at(y, k2p31 + 3));
  CHECK_FALSE(bool_at(y, kHuge - 1));
  CHECK(y.any().item<bool>());
  CHECK_FALSE(y.all().item<bool>());
}

TEST_CASE("cuda huge: float32 arithmetic and argmax over 2^31 + 2048 elements",
          "[.][huge][cuda]") {
  Tensor y;
  {
    const Tensor a = full({kHuge}, 1.5, on_gpu(kFloat));
    a.select(0, k2p31 + 5).fill_(4.0);
    y = a * 2.0 - 1.0;  // 2 everywhere, 7 at 2^31 + 5
  }
  CHECK(float_at(y, 0) == 2.0f);
  CHECK(float_at(y, k2p31 - 1) == 2.0f);
  CHECK(float_at(y, k2p31 + 5) == 7.0f);
  CHECK(float_at(y, kHuge - 1) == 2.0f);
  CHECK(y.argmax().item<int64_t>() == k2p31 + 5);
  CHECK(y.amax().item<float>() == 7.0f);
  CHECK(y.amin().item<float>() == 2.0f);
}

TEST_CASE("cuda huge: index_select and index_fill_ at indices past 2^31", "[.][huge][cuda]") {
  const Tensor a = zeros({kHuge}, on_gpu(kFloat));
  const Tensor idx = tensor({k2p31 - 1, k2p31, k2p31 + 1, kHuge - 1}, kLong).to(kGpu);
  a.index_fill_(0, idx, 3.0);
  CHECK(a.sum().item<double>() == 12.0);
  CHECK(float_at(a, k2p31) == 3.0f);
  CHECK(float_at(a, k2p31 + 2) == 0.0f);
  const Tensor picked = a.index_select(0, tensor({k2p31 - 2, k2p31, kHuge - 1}, kLong).to(kGpu));
  check_same(picked, tensor({0.0f, 3.0f, 3.0f}));
}

TEST_CASE("cuda huge: a transposing copy of 2 x (2^30 + 1024) bools", "[.][huge][cuda]") {
  const int64_t half = kHuge / 2;
  const Tensor m = zeros({kHuge}, on_gpu(kBool));
  m.select(0, half + 7).fill_(true);     // row 1, column 7
  m.select(0, kHuge - 1).fill_(true);    // row 1, the last column
  m.select(0, half - 1).fill_(true);     // row 0, the last column
  const Tensor t = m.view({2, half}).t().contiguous();  // (half, 2): strided reads
  REQUIRE(t.is_contiguous());
  CHECK(t.sum().item<int64_t>() == 3);
  CHECK(t.select(0, 7).select(0, 1).item<bool>());
  CHECK_FALSE(t.select(0, 7).select(0, 0).item<bool>());
  CHECK(t.select(0, half - 1).select(0, 0).item<bool>());
  CHECK(t.select(0, half - 1).select(0, 1).item<bool>());
  // Flat, element 2 * 7 + 1 is past nothing; element 2 * (half - 1) + 1 = kHuge - 1.
  CHECK(bool_at(t.view({kHuge}), kHuge - 1));
  CHECK(bool_at(t.view({kHuge}), 2 * 7 + 1));
  // The tail back to the host: a copy that starts past 2^31.
  const Tensor tail = t.view({kHuge}).narrow(0, kHuge - 4, 4).cpu();
  CHECK(tail.sum().item<int64_t>() == 2);  // kHuge - 2 (row 0) and kHuge - 1 (row 1)
}
