// Fused optimizer loops (see optim_kernels.h for the update rules). The flags
// that change the rule (momentum, nesterov, amsgrad, AdamW) are template
// parameters, so each inner loop is branch-free and vectorizes.
#include "ember/kernels/cpu/optim_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {
namespace {

void check_operand(const Tensor& param, const Tensor& t) {
  EMBER_INTERNAL_ASSERT(t.is_contiguous() && t.is_cpu() && t.dtype() == param.dtype() &&
                            t.numel() == param.numel(),
                        "optimizer kernel operand ", t.toString(), " for parameter ",
                        param.toString());
}

template <typename T, bool kMomentum, bool kNesterov, bool kFirst>
void sgd_loop(T* p, const T* g, T* buf, int64_t n, const SgdHyper& h) {
  const T lr = static_cast<T>(h.lr), wd = static_cast<T>(h.weight_decay);
  const T mom = static_cast<T>(h.momentum), damp = static_cast<T>(1 - h.dampening);
  parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
      const T gi = g[i] + wd * p[i];
      T d = gi;
      if constexpr (kMomentum) {
        const T b = kFirst ? gi : mom * buf[i] + damp * gi;
        buf[i] = b;
        d = kNesterov ? gi + mom * b : b;
      }
      p[i] = p[i] - lr * d;
    }
  });
}

template <typename T, bool kAmsgrad, bool kDecoupled>
void adam_loop(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, const AdamHyper& h) {
  const double bias1 = 1 - std::pow(h.beta1, static_cast<double>(h.step));
  const double bias2 = 1 - std::pow(h.beta2, static_cast<double>(h.step));
  const T neg_step_size = static_cast<T>(-h.lr / bias1);
  const T inv_bias2_sqrt = static_cast<T>(1 / std::sqrt(bias2));
  const T one_minus_b1 = static_cast<T>(1 - h.beta1), b2 = static_cast<T>(h.beta2);
  const T one_minus_b2 = static_cast<T>(1 - h.beta2), eps = static_cast<T>(h.eps);
  const T wd = static_cast<T>(h.weight_decay), decay = static_cast<T>(1 - h.lr * h.weight_decay);
  parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
      T pi = p[i], gi = g[i];
      if constexpr (kDecoupled)
        pi = pi * decay;
      else
        gi = gi + wd * pi;
      const T mi = m[i] + one_minus_b1 * (gi - m[i]);
      T vi = b2 * v[i] + one_minus_b2 * gi * gi;
      m[i] = mi;
      v[i] = vi;
      if constexpr (kAmsgrad) {
        vi = std::max(vmax[i], vi);
        vmax[i] = vi;
      }
      const T denom = std::sqrt(vi) * inv_bias2_sqrt + eps;
      p[i] = pi + neg_step_size * (mi / denom);
    }
  });
}

// Calls f.template operator()<B>() with B the runtime flag b as a constant.
template <typename F>
void with_flag(bool b, const F& f) {
  if (b)
    f.template operator()<true>();
  else
    f.template operator()<false>();
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdHyper& h, bool first_step) {
  check_operand(param, param);
  check_operand(param, grad);
  const bool momentum = h.momentum != 0;
  if (momentum) check_operand(param, momentum_buffer);
  dispatch_floating(param.dtype(), "sgd_update", [&]<typename T>() {
    T* p = param.data_ptr<T>();
    const T* g = grad.data_ptr<T>();
    T* buf = momentum ? momentum_buffer.data_ptr<T>() : nullptr;
    with_flag(momentum, [&]<bool kMomentum>() {
      with_flag(momentum && h.nesterov, [&]<bool kNesterov>() {
        with_flag(first_step, [&]<bool kFirst>() {
          sgd_loop<T, kMomentum, kNesterov, kFirst>(p, g, buf, param.numel(), h);
        });
      });
    });
  });
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h) {
  check_operand(param, param);
  check_operand(param, grad);
  check_operand(param, exp_avg);
  check_operand(param, exp_avg_sq);
  if (h.amsgrad) check_operand(param, max_exp_avg_sq);
  dispatch_floating(param.dtype(), "adam_update", [&]<typename T>() {
    T* vmax = h.amsgrad ? max_exp_avg_sq.data_ptr<T>() : nullptr;
    with_flag(h.amsgrad, [&]<bool kAmsgrad>() {
      with_flag(h.decoupled_weight_decay, [&]<bool kDecoupled>() {
        adam_loop<T, kAmsgrad, kDecoupled>(param.data_ptr<T>(), grad.data_ptr<T>(),
                                           exp_avg.data_ptr<T>(), exp_avg_sq.data_ptr<T>(),
                                           vmax, param.numel(), h);
      });
    });
  });
}

double abs_pow_sum(const Tensor& x, double p) {
  EMBER_INTERNAL_ASSERT(x.is_contiguous() && x.is_cpu(), "abs_pow_sum of ", x.toString());
  const bool is_max = std::isinf(p);
  double total = 0;
  std::mutex mu;  // one lock per chunk: at most get_num_threads() of them
  dispatch_floating(x.dtype(), "abs_pow_sum", [&]<typename T>() {
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
