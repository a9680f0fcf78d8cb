// Fused optimizer loops over the shared functors of optim_functors.h (the
// update rules are there), on float16, bfloat16, float32 and float64 elements
// (16-bit ones computed in float32, rounded once on store). The flags that change the rule (momentum,
// nesterov, amsgrad, AdamW) are template parameters, so each inner loop is
// branch-free and vectorizes.
#include "ember/kernels/cpu/optim_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/cpu/convert_16bit.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {
namespace {

void check_operand(const Tensor& param, const Tensor& t) {
  EMBER_INTERNAL_ASSERT(t.is_contiguous() && t.is_cpu() && t.dtype() == param.dtype() &&
                            t.numel() == param.numel(),
                        "optimizer kernel operand ", t.toString(), " for parameter ",
                        param.toString());
}

// The gradient's elements, read only: fused_loop writes back what is not const.
template <typename S>
const S* gradient(const Tensor& grad) {
  return grad.data_ptr<S>();
}

// A gated step on the CPU: the flag and the count are host memory, so the
// gate is read here and the ordinary loop runs (or not). Returns the step
// count to use (0 where the gate keeps none), or -1 when the step is skipped.
int64_t open_gate(const char* op, const Tensor& param, const StepGate& gate) {
  EMBER_INTERNAL_ASSERT(gate.found_inf.is_cpu() && (!gate.step.defined() || gate.step.is_cpu()),
                        op, ": a gate off the CPU for parameter ", param.toString());
  if (*gate.found_inf.data_ptr<float>() != 0) return -1;
  return gate.step.defined() ? *gate.step.data_ptr<int64_t>() : 0;
}

// update(operands..., i) for every element, in parallel chunks. The operands
// point to elements of one storage type S (null where the rule does not use
// them; the gradient's is const). float32, float64 and bfloat16 (whose
// conversions are a shift and a rounding add the compiler vectorizes) run in
// place; float16 in tiles: each used operand's tile widened to float32 with
// F16C (convert_16bit.h), the float update's loop over the tiles, and the
// tiles it writes rounded back once, which is what the update computes element
// by element (the scalar float16 conversions do not vectorize: Adam took
// 17.7 ns a parameter that way, 0.4-0.9 in tiles; benchmarks/optim_step
// --dtype float16, docs/benchmarks.md).
template <typename F, typename... Ptr>
void fused_loop(const F& update, int64_t n, Ptr... operands) {
  using S = std::remove_const_t<std::remove_pointer_t<std::tuple_element_t<0, std::tuple<Ptr...>>>>;
  if constexpr (!std::is_same_v<S, Half>) {
    parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) update(operands..., i);
    });
  } else {
    constexpr int64_t kTile = 256;
    parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
      std::array<std::array<float, kTile>, sizeof...(Ptr)> tiles;
      [&]<size_t... K>(std::index_sequence<K...>) {
        // The float operand standing for operand K: its tile, or null.
        auto tile = [&](auto* operand, float* t) {
          using Element = std::remove_pointer_t<decltype(operand)>;
          using Float = std::conditional_t<std::is_const_v<Element>, const float*, float*>;
          return operand != nullptr ? Float(t) : Float(nullptr);
        };
        for (int64_t j = begin; j < end; j += kTile) {
          const int64_t m = std::min(kTile, end - j);
          ((operands != nullptr ? widen(operands + j, tiles[K].data(), m) : void()), ...);
          const auto float_operands = std::make_tuple(tile(operands, tiles[K].data())...);
#pragma omp simd
          for (int64_t i = 0; i < m; ++i) update(std::get<K>(float_operands)..., i);
          ((operands != nullptr && !std::is_const_v<std::remove_pointer_t<Ptr>>
                ? narrow(tiles[K].data(), const_cast<S*>(operands) + j, m)
                : void()),
           ...);
        }
      }(std::index_sequence_for<Ptr...>{});
    });
  }
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdHyper& h, bool first_step, const StepGate& gate) {
  if (gate.active()) {
    const int64_t step = open_gate("sgd_update", param, gate);
    if (step < 0) return;
    first_step = step == 1;  // the momentum buffer's first step (SgdMomentumRule)
  }
  check_operand(param, param);
  check_operand(param, grad);
  const bool momentum = h.momentum != 0;
  if (momentum) check_operand(param, momentum_buffer);
  dispatch_floating_storage(param.dtype(), "sgd_update", [&]<typename S>() {
    S* p = param.data_ptr<S>();
    const S* g = gradient<S>(grad);
    S* buf = momentum ? momentum_buffer.data_ptr<S>() : nullptr;
    with_flag(momentum, [&]<bool kMomentum>() {
      with_flag(momentum && h.nesterov, [&]<bool kNesterov>() {
        with_flag(first_step, [&]<bool kFirst>() {
          fused_loop(functors::make_sgd_update<opmath_t<S>, kMomentum, kNesterov, kFirst>(h),
                     param.numel(), p, g, buf);
        });
      });
    });
  });
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& hyper,
                 const StepGate& gate) {
  AdamHyper h = hyper;
  if (gate.active()) {
    h.step = open_gate("adam_update", param, gate);
    if (h.step < 0) return;
  }
  check_operand(param, param);
  check_operand(param, grad);
  check_operand(param, exp_avg);
  check_operand(param, exp_avg_sq);
  if (h.amsgrad) check_operand(param, max_exp_avg_sq);
  dispatch_floating_storage(param.dtype(), "adam_update", [&]<typename S>() {
    S* vmax = h.amsgrad ? max_exp_avg_sq.data_ptr<S>() : nullptr;
    with_flag(h.amsgrad, [&]<bool kAmsgrad>() {
      with_flag(h.decoupled_weight_decay, [&]<bool kDecoupled>() {
        fused_loop(functors::make_adam_update<opmath_t<S>, kAmsgrad, kDecoupled>(h),
                   param.numel(), param.data_ptr<S>(), gradient<S>(grad), exp_avg.data_ptr<S>(),
                   exp_avg_sq.data_ptr<S>(), vmax);
      });
    });
  });
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h,
                    const StepGate& gate) {
  if (gate.active() && open_gate("rmsprop_update", param, gate) < 0) return;
  check_operand(param, param);
  check_operand(param, grad);
  check_operand(param, square_avg);
  const bool momentum = h.momentum > 0;
  if (momentum) check_operand(param, momentum_buffer);
  if (h.centered) check_operand(param, grad_avg);
  dispatch_floating_storage(param.dtype(), "rmsprop_update", [&]<typename S>() {
    S* buf = momentum ? momentum_buffer.data_ptr<S>() : nullptr;
    S* gavg = h.centered ? grad_avg.data_ptr<S>() : nullptr;
    with_flag(momentum, [&]<bool kMomentum>() {
      with_flag(h.centered, [&]<bool kCentered>() {
        fused_loop(functors::make_rmsprop_update<opmath_t<S>, kMomentum, kCentered>(h),
                   param.numel(), param.data_ptr<S>(), gradient<S>(grad),
                   square_avg.data_ptr<S>(), buf, gavg);
      });
    });
  });
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradHyper& hyper, const StepGate& gate) {
  AdagradHyper h = hyper;
  if (gate.active()) {
    h.step = open_gate("adagrad_update", param, gate);
    if (h.step < 0) return;
  }
  check_operand(param, param);
  check_operand(param, grad);
  check_operand(param, sum);
  dispatch_floating_storage(param.dtype(), "adagrad_update", [&]<typename S>() {
    fused_loop(functors::make_adagrad_update<opmath_t<S>>(h), param.numel(), param.data_ptr<S>(),
               gradient<S>(grad), sum.data_ptr<S>());
  });
}

void count_step(const Tensor& step, const Tensor& found_inf) {
  EMBER_INTERNAL_ASSERT(step.is_cpu() && step.dtype() == kLong && step.numel() == 1 &&
                            found_inf.is_cpu() && found_inf.dtype() == kFloat &&
                            found_inf.numel() == 1,
                        "count_step of ", step.toString(), " by ", found_inf.toString());
  if (*found_inf.data_ptr<float>() == 0) ++*step.data_ptr<int64_t>();
}

double abs_pow_sum(const char* name, const Tensor& x, double p) {
  EMBER_INTERNAL_ASSERT(x.is_contiguous() && x.is_cpu(), "abs_pow_sum of ", x.toString());
  const bool is_max = std::isinf(p);
  double total = 0;
  std::mutex mu;  // one lock per chunk: at most get_num_threads() of them
  dispatch_floating(x.dtype(), name, [&]<typename T>() {
    const T* d = x.data_ptr<T>();
    parallel_for(0, x.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      double acc = 0;
      if (is_max) {
        for (int64_t i = begin; i < end; ++i) {
          const double a = std::abs(static_cast<double>(d[i]));
          acc = std::isnan(a) || a > acc ? a : acc;  // NaN sticks, as torch.max
          if (std::isnan(acc)) break;
        }
      } else if (p == 2) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = begin; i < end; ++i) acc += static_cast<double>(d[i]) * d[i];
      } else {
        for (int64_t i = begin; i < end; ++i)
          acc += std::pow(std::abs(static_cast<double>(d[i])), p);
      }
      std::lock_guard<std::mutex> lock(mu);
      total = is_max ? (std::isnan(acc) || acc > total ? acc : total) : total + acc;
    });
  });
  return total;
}

}  // namespace ember::cpu
