// Random tensors and the in-place samplers, all drawn from Philox streams
// (kernels/common/philox.h) through the random family's kernel table
// (kernels/common/random_kernels.h), whose kernels run the same per-block
// draws on every device: the same seed gives the same values on the CPU and
// on CUDA, and each device's generator advances by the same blocks.
#include <algorithm>
#include <numeric>

#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/generator.h"
#include "ember/core/ops/creation/device_copy.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/creation/random.h"
#include "ember/kernels/common/philox.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {
namespace {

// Runs `fill` on t directly when contiguous, else on a contiguous temporary copied back.
template <typename Fill>
// backward_name: the node that cuts a non-leaf's history (the old values no longer matter).
Tensor& fill_in_place(Tensor& self, const char* op, const char* backward_name, const Fill& fill) {
  autograd::check_inplace(self, op);
  assert_no_internal_overlap(op, self);  // one location would get several draws
  if (self.is_contiguous()) {
    fill(self);
  } else {
    // Filled in row-major order of self's shape on either device, so a seed
    // gives one layout-independent result; copied without copy_'s version bump.
    Tensor tmp = empty(self.sizes(), self.options().requires_grad(false));
    fill(tmp);
    detail::copy_any_device(self, tmp);
  }
  self.impl()->bump_version();
  if (autograd::needs_grad(self)) {
    autograd::rebase_history(self, autograd::make_node(backward_name, tensor_list{},
        [](autograd::Node&, const tensor_list&) { return tensor_list{}; }));
  }
  return self;
}

// The random kernels draw in the compute dtypes (float32 for bfloat16 and
// float16, int64 for the narrow integers); t of another dtype gets values
// drawn in its compute dtype, passed through `adjust`, and rounded.
template <typename Draw, typename Adjust>
void draw_into(Tensor& t, const Draw& draw, const Adjust& adjust) {
  const ScalarType c = compute_dtype(t.scalar_type());
  if (c == t.scalar_type()) return draw(t);
  Tensor drawn = empty(t.sizes(), t.options().dtype(c).requires_grad(false));
  draw(drawn);
  adjust(drawn);
  detail::copy_any_device(t, drawn);
}
template <typename Draw>
void draw_into(Tensor& t, const Draw& draw) {
  draw_into(t, draw, [](Tensor&) {});
}

// The largest value of the floating dtype t (bfloat16 or float16) below `to`.
// Draws from [from, to) are clamped to it before they are rounded to t, so
// that none rounds up to `to`: the interval stays open in every dtype.
double largest_below(ScalarType t, double to) {
  return dispatch_storage(t, "uniform_", [&]<typename T>() -> double {
    if constexpr (is_reduced_float_v<T>) {
      const T rounded = static_cast<T>(static_cast<float>(to));
      if (static_cast<double>(static_cast<float>(rounded)) < to) return static_cast<float>(rounded);
      // One step down in the format: codes of one sign are ordered by magnitude.
      const uint16_t bits = rounded.x;
      const bool negative = bits & 0x8000;
      if ((bits & 0x7fff) == 0) return -static_cast<double>(static_cast<float>(std::numeric_limits<T>::denorm_min()));
      return static_cast<float>(T(static_cast<uint16_t>(negative ? bits + 1 : bits - 1), from_bits));
    } else {
      return to;
    }
  });
}

}  // namespace

Tensor& Tensor::uniform_(double from, double to) const {
  EMBER_CHECK(from <= to, "uniform_: from (", from, ") must be <= to (", to, ")");
  // derivative: none: the drawn values depend on no input (the old history is cut)
  return fill_in_place(const_cast<Tensor&>(*this), "uniform_", "UniformBackward", [&](Tensor& t) {
    draw_into(
        t, [&](Tensor& d) { kernels().random.uniform.on(d.device(), "uniform_")(d, from, to); },
        [&](Tensor& drawn) {
          if (is_reduced_floating_point(t.scalar_type()) && from < to)
            drawn.clamp_(std::nullopt, std::max(from, largest_below(t.scalar_type(), to)));
        });
  });
}

Tensor& Tensor::normal_(double mean, double std) const {
  EMBER_CHECK(std >= 0, "normal_: std must be non-negative, got ", std);
  // derivative: none: the drawn values depend on no input (the old history is cut)
  return fill_in_place(const_cast<Tensor&>(*this), "normal_", "NormalBackward", [&](Tensor& t) {
    draw_into(t, [&](Tensor& d) { kernels().random.normal.on(d.device(), "normal_")(d, mean, std); });
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
  EMBER_CHECK(converts_without_overflow(low, t.scalar_type()) &&
                  converts_without_overflow(high - 1, t.scalar_type()),
              "randint: the range [", low, ", ", high, ") does not fit dtype ", t.scalar_type());
  draw_into(t, [&](Tensor& d) { kernels().random.randint.on(d.device(), "randint")(d, low, high); });
  return t;
}

// Fisher-Yates on the host with the swap targets from one Philox draw of the
// generator of the requested device; a CUDA result is then copied over (one
// host->device copy: the shuffle is sequential, a kernel would gain nothing).
Tensor randperm(int64_t n, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  const auto [seed, base] =
      default_generator(options.device()).reserve(philox::blocks_for_uniform64(n));
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
