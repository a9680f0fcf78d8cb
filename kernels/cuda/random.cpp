// The host half of the CUDA random fills (kernels/cuda/random.h): checks,
// the generator reservation (the same block counts as the CPU loops), and
// the launch. Compiled in every build; without CUDA each fill raises.
#include "ember/kernels/cuda/random.h"

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/kernels/common/philox.h"
#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {
namespace {

#ifdef EMBER_WITH_CUDA
// Blocks of `draw` that n values of dtype take: what the CPU reserves too.
uint64_t blocks_for(PhiloxDraw draw, ScalarType dtype, int64_t n) {
  const auto u = static_cast<uint64_t>(n);
  switch (draw) {
    case PhiloxDraw::kUniform:
      return dtype == kFloat ? philox::blocks_for<philox::UniformDraw<float>>(u)
                             : philox::blocks_for<philox::UniformDraw<double>>(u);
    case PhiloxDraw::kNormal: return philox::blocks_for<philox::NormalDraw<double>>(u);
    case PhiloxDraw::kRandint: return philox::blocks_for<philox::RandintDraw<int64_t>>(u);
    case PhiloxDraw::kDropoutMask: return philox::blocks_for<philox::DropoutMaskDraw<float>>(u);
  }
  return 0;
}
#endif

void check_floating_dtype(const char* op, const Tensor& t) {
  dispatch_floating(t.scalar_type(), op, []<typename>() {});
}

void fill(const char* op, const Tensor& t, PhiloxFill f) {
  EMBER_CHECK(t.is_cuda(), op, ": ", t.toString(), " is not a CUDA tensor");
  EMBER_INTERNAL_ASSERT(t.is_contiguous(), op, ": the fill needs a contiguous tensor");
#ifdef EMBER_WITH_CUDA
  f.dtype = t.scalar_type();
  f.out = t.data_ptr();
  f.n = t.numel();
  f.device = detail::device_of(t);
  const auto [seed, base] = default_generator(t.device()).reserve(blocks_for(f.draw, f.dtype, f.n));
  f.seed = seed;
  f.base = base;
  if (f.n > 0) detail::launch_philox_fill(f);
#else
  (void)f;
  detail::no_cuda(op, t);
#endif
}

}  // namespace

void fill_uniform(const Tensor& t, double from, double to) {
  EMBER_CHECK(from <= to, "uniform_: from (", from, ") must be <= to (", to, ")");
  check_floating_dtype("uniform_", t);
  PhiloxFill f;
  f.draw = PhiloxDraw::kUniform;
  f.a = from;
  f.b = to - from;
  fill("uniform_", t, f);
}

void fill_normal(const Tensor& t, double mean, double std) {
  EMBER_CHECK(std >= 0, "normal_: std must be non-negative, got ", std);
  check_floating_dtype("normal_", t);
  PhiloxFill f;
  f.draw = PhiloxDraw::kNormal;
  f.a = mean;
  f.b = std;
  fill("normal_", t, f);
}

void fill_randint(const Tensor& t, int64_t low, int64_t high) {
  EMBER_CHECK(low < high, "randint: low (", low, ") must be less than high (", high, ")");
  dispatch_numeric(t.scalar_type(), "randint", []<typename>() {});
  PhiloxFill f;
  f.draw = PhiloxDraw::kRandint;
  f.low = low;
  f.range = static_cast<uint64_t>(high - low);
  fill("randint", t, f);
}

void fill_dropout_mask(const Tensor& mask, double p) {
  EMBER_CHECK(p >= 0 && p < 1, "dropout: the keep-mask needs 0 <= p < 1, got ", p);
  check_floating_dtype("dropout", mask);
  PhiloxFill f;
  f.draw = PhiloxDraw::kDropoutMask;
  f.a = 1 - p;
  f.b = 1 / (1 - p);
  fill("dropout", mask, f);
}

}  // namespace ember::cuda
