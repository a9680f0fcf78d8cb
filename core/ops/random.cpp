// Random tensors and the in-place samplers, all drawn from Philox streams
// (kernels/common/philox.h) so the same seed gives the same values anywhere.
#include <algorithm>
#include <numeric>

#include "ember/autograd/function.h"
#include "ember/core/generator.h"
#include "ember/core/ops/factory.h"
#include "ember/core/parallel.h"
#include "ember/kernels/common/philox.h"

namespace ember {
namespace {

// Writes gen(seed, base, i) into each element of t (contiguous) in parallel.
template <typename T, typename Gen>
void fill_random(Tensor& t, uint64_t blocks, const Gen& gen) {
  EMBER_CHECK(t.is_cpu(), "random fill on ", t.device(), " needs the CUDA backend");
  const auto [seed, base] = default_generator(t.device()).reserve(blocks);
  T* p = t.data_ptr<T>();
  parallel_for(0, t.numel(), 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = static_cast<T>(gen(seed, base, static_cast<uint64_t>(i)));
  });
}

// Runs `fill` on t directly when contiguous, else on a contiguous temporary copied back.
template <typename Fill>
Tensor& fill_in_place(Tensor& self, const char* op, const Fill& fill) {
  autograd::check_inplace(self, op);
  if (self.is_contiguous()) {
    fill(self);
  } else {
    Tensor tmp = empty(self.sizes(), self.options());
    fill(tmp);
    NoGradGuard guard;
    self.copy_(tmp);
  }
  self.impl()->bump_version();
  return self;
}

}  // namespace

Tensor& Tensor::uniform_(double from, double to) {
  EMBER_CHECK(from <= to, "uniform_: from (", from, ") must be <= to (", to, ")");
  return fill_in_place(*this, "uniform_", [&](Tensor& t) {
    dispatch_floating(t.scalar_type(), "uniform_", [&]<typename T>() {
      if constexpr (std::is_same_v<T, float>) {
        fill_random<float>(t, philox::blocks_for_uniform32(t.numel()), [&](uint64_t s, uint64_t b, uint64_t i) {
          return from + (to - from) * philox::uniform_float(s, b, i);
        });
      } else {
        fill_random<double>(t, philox::blocks_for_uniform64(t.numel()), [&](uint64_t s, uint64_t b, uint64_t i) {
          return from + (to - from) * philox::uniform_double(s, b, i);
        });
      }
    });
  });
}

Tensor& Tensor::normal_(double mean, double std) {
  EMBER_CHECK(std >= 0, "normal_: std must be non-negative, got ", std);
  return fill_in_place(*this, "normal_", [&](Tensor& t) {
    dispatch_floating(t.scalar_type(), "normal_", [&]<typename T>() {
      fill_random<T>(t, philox::blocks_for_normal(t.numel()), [&](uint64_t s, uint64_t b, uint64_t i) {
        return mean + std * philox::normal(s, b, i);
      });
    });
  });
}

Tensor rand(IntArrayRef size, const TensorOptions& options) {
  Tensor t = empty(size, options.requires_grad(false));
  t.uniform_(0, 1);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor randn(IntArrayRef size, const TensorOptions& options) {
  Tensor t = empty(size, options.requires_grad(false));
  t.normal_(0, 1);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor rand_like(const Tensor& t) { return rand(t.sizes(), t.options()); }
Tensor randn_like(const Tensor& t) { return randn(t.sizes(), t.options()); }

Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint(0, high, size, options);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options) {
  EMBER_CHECK(low < high, "randint: low (", low, ") must be less than high (", high, ")");
  Tensor t = empty(size, options);
  const uint64_t range = static_cast<uint64_t>(high - low);
  dispatch_numeric(t.scalar_type(), "randint", [&]<typename T>() {
    fill_random<T>(t, philox::blocks_for_uniform64(t.numel()), [&](uint64_t s, uint64_t b, uint64_t i) {
      return static_cast<T>(low + static_cast<int64_t>(philox::bits64(s, b, i) % range));
    });
  });
  return t;
}

Tensor randperm(int64_t n, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  // Fisher-Yates with the swap targets from one Philox draw.
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  const auto [seed, base] = default_generator().reserve(philox::blocks_for_uniform64(n));
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(philox::bits64(seed, base, static_cast<uint64_t>(i)) %
                                        static_cast<uint64_t>(i + 1));
    std::swap(perm[i], perm[j]);
  }
  return tensor(perm, options);
}

Tensor bernoulli(const Tensor& p) {
  return (rand(p.sizes(), p.options().requires_grad(false)) < p).to(p.scalar_type());
}

}  // namespace ember
