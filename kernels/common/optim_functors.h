#pragma once
// The per-element maths of the fused optimizer updates, shared by the CPU
// loops (kernels/cpu/optim_kernels.cpp) and the CUDA kernels
// (kernels/cuda/optim.cu). T is the type they compute in, and the elements
// are of a storage type S: S = T for float32 and float64, float16 and
// bfloat16 elements with T = float, read as float and rounded once on store
// (Note [Reduced-precision floats are storage types]). The flags that change the rule are template
// parameters, so each loop body is branch-free (and vectorizes on the CPU);
// everything that depends only on the step (bias corrections, the decay
// factor) is computed once by the make_* functions and passed by value: on
// the host from the host's step count, so a CUDA step needs no host sync; or,
// for a step that GradScaler lets the device skip (Note [Steps skipped on the
// device]), by the *Rule types at the end, in the kernel, from a step count
// that only the device knows.
#include <cmath>
#include <cstdint>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/unary_functors.h"

namespace ember {

struct SgdHyper {
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
};

struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad;
  bool decoupled_weight_decay;  // AdamW: p *= 1 - lr * wd instead of adding wd * p to grad
  int64_t step;                 // counted from 1 (this step included)
};

struct RmspropHyper {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered;
};

struct AdagradHyper {
  double lr, lr_decay, weight_decay, eps;
  int64_t step;  // counted from 1 (this step included)
};

namespace functors {

// torch.optim.SGD on element i (buf is unused without kMomentum):
//   g = grad + weight_decay * p
//   buf = first step ? g : momentum * buf + (1 - dampening) * g
//   p -= lr * (nesterov ? g + momentum * buf : buf)      (without momentum: lr * g)
template <typename T, bool kMomentum, bool kNesterov, bool kFirst>
struct SgdUpdate {
  T lr, weight_decay, momentum, one_minus_dampening;

  template <typename S>
  EMBER_HOST_DEVICE void operator()(S* p, const S* grad, S* buf, int64_t i) const {
    const T pi = static_cast<T>(p[i]);
    const T g = static_cast<T>(grad[i]) + weight_decay * pi;
    T d = g;
    if constexpr (kMomentum) {
      const T b = kFirst ? g : momentum * static_cast<T>(buf[i]) + one_minus_dampening * g;
      buf[i] = static_cast<S>(b);
      d = kNesterov ? g + momentum * b : b;
    }
    p[i] = static_cast<S>(pi - lr * d);
  }
};

template <typename T, bool kMomentum, bool kNesterov, bool kFirst>
EMBER_HOST_DEVICE SgdUpdate<T, kMomentum, kNesterov, kFirst> make_sgd_update(const SgdHyper& h) {
  return {static_cast<T>(h.lr), static_cast<T>(h.weight_decay), static_cast<T>(h.momentum),
          static_cast<T>(1 - h.dampening)};
}

// torch.optim.Adam / AdamW on element i (vmax is unused without kAmsgrad):
//   p = p * (1 - lr * wd)           (AdamW)  |  g = grad + wd * p   (Adam)
//   m = m + (1 - beta1) * (g - m)
//   v = beta2 * v + (1 - beta2) * g * g
//   vmax = max(vmax, v)             (amsgrad; the denominator then uses vmax)
//   p = p - lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
template <typename T, bool kAmsgrad, bool kDecoupled>
struct AdamUpdate {
  T neg_step_size, inv_bias2_sqrt, one_minus_beta1, beta2, one_minus_beta2, eps;
  T weight_decay, decay;  // decay = 1 - lr * weight_decay (AdamW)

  template <typename S>
  EMBER_HOST_DEVICE void operator()(S* p, const S* grad, S* m, S* v, S* vmax, int64_t i) const {
    T pi = static_cast<T>(p[i]), g = static_cast<T>(grad[i]);
    if constexpr (kDecoupled)
      pi = pi * decay;
    else
      g = g + weight_decay * pi;
    const T m0 = static_cast<T>(m[i]);
    const T mi = m0 + one_minus_beta1 * (g - m0);
    T vi = beta2 * static_cast<T>(v[i]) + one_minus_beta2 * g * g;
    m[i] = static_cast<S>(mi);
    v[i] = static_cast<S>(vi);
    if constexpr (kAmsgrad) {
      const T vmax0 = static_cast<T>(vmax[i]);
      vi = vmax0 > vi ? vmax0 : vi;
      vmax[i] = static_cast<S>(vi);
    }
    const T denom = math::sqrt(vi) * inv_bias2_sqrt + eps;
    p[i] = static_cast<S>(pi + neg_step_size * (mi / denom));
  }
};

// ::pow and ::sqrt on doubles: the C functions std:: names on the host, and
// the ones CUDA device code has.
template <typename T, bool kAmsgrad, bool kDecoupled>
EMBER_HOST_DEVICE AdamUpdate<T, kAmsgrad, kDecoupled> make_adam_update(const AdamHyper& h) {
  const double bias1 = 1 - ::pow(h.beta1, static_cast<double>(h.step));
  const double bias2 = 1 - ::pow(h.beta2, static_cast<double>(h.step));
  return {static_cast<T>(-h.lr / bias1),
          static_cast<T>(1 / ::sqrt(bias2)),
          static_cast<T>(1 - h.beta1),
          static_cast<T>(h.beta2),
          static_cast<T>(1 - h.beta2),
          static_cast<T>(h.eps),
          static_cast<T>(h.weight_decay),
          static_cast<T>(1 - h.lr * h.weight_decay)};
}

// torch.optim.RMSprop on element i (buf unused without kMomentum, gavg without kCentered):
//   g = grad + weight_decay * p
//   sq = alpha * sq + (1 - alpha) * g * g
//   gavg = alpha * gavg + (1 - alpha) * g                     (centered)
//   avg = sqrt(centered ? sq - gavg^2 : sq) + eps
//   buf = momentum * buf + g / avg;  p -= lr * buf            (momentum > 0)
//   p -= lr * g / avg                                         (otherwise)
template <typename T, bool kMomentum, bool kCentered>
struct RmspropUpdate {
  T lr, alpha, one_minus_alpha, eps, weight_decay, momentum;

  template <typename S>
  EMBER_HOST_DEVICE void operator()(S* p, const S* grad, S* sq, S* buf, S* gavg,
                                    int64_t i) const {
    const T pi = static_cast<T>(p[i]);
    const T g = static_cast<T>(grad[i]) + weight_decay * pi;
    const T s = alpha * static_cast<T>(sq[i]) + one_minus_alpha * g * g;
    sq[i] = static_cast<S>(s);
    T var = s;
    if constexpr (kCentered) {
      const T ga = alpha * static_cast<T>(gavg[i]) + one_minus_alpha * g;
      gavg[i] = static_cast<S>(ga);
      var = s - ga * ga;
    }
    const T step = g / (math::sqrt(var) + eps);
    if constexpr (kMomentum) {
      const T b = momentum * static_cast<T>(buf[i]) + step;
      buf[i] = static_cast<S>(b);
      p[i] = static_cast<S>(pi - lr * b);
    } else {
      p[i] = static_cast<S>(pi - lr * step);
    }
  }
};

template <typename T, bool kMomentum, bool kCentered>
EMBER_HOST_DEVICE RmspropUpdate<T, kMomentum, kCentered> make_rmsprop_update(
    const RmspropHyper& h) {
  return {static_cast<T>(h.lr),  static_cast<T>(h.alpha),        static_cast<T>(1 - h.alpha),
          static_cast<T>(h.eps), static_cast<T>(h.weight_decay), static_cast<T>(h.momentum)};
}

// torch.optim.Adagrad on element i:
//   g = grad + weight_decay * p
//   sum = sum + g * g
//   p -= lr / (1 + (step - 1) * lr_decay) * g / (sqrt(sum) + eps)
template <typename T>
struct AdagradUpdate {
  T neg_clr, weight_decay, eps;

  template <typename S>
  EMBER_HOST_DEVICE void operator()(S* p, const S* grad, S* sum, int64_t i) const {
    const T pi = static_cast<T>(p[i]);
    const T g = static_cast<T>(grad[i]) + weight_decay * pi;
    const T s = static_cast<T>(sum[i]) + g * g;
    sum[i] = static_cast<S>(s);
    p[i] = static_cast<S>(pi + neg_clr * (g / (math::sqrt(s) + eps)));
  }
};

template <typename T>
EMBER_HOST_DEVICE AdagradUpdate<T> make_adagrad_update(const AdagradHyper& h) {
  const double clr = h.lr / (1 + static_cast<double>(h.step - 1) * h.lr_decay);
  return {static_cast<T>(-clr), static_cast<T>(h.weight_decay), static_cast<T>(h.eps)};
}

// The rules as the CUDA kernels build them: rule(step) is the update for
// step count `step` (0 where the optimizer keeps no count for it), which a
// device-gated step reads on the device (Note [Steps skipped on the device])
// and an ordinary one takes from the host.
template <typename T, bool kAmsgrad, bool kDecoupled>
struct AdamRule {
  AdamHyper h;
  EMBER_HOST_DEVICE AdamUpdate<T, kAmsgrad, kDecoupled> operator()(int64_t step) const {
    AdamHyper at = h;
    at.step = step;
    return make_adam_update<T, kAmsgrad, kDecoupled>(at);
  }
};

template <typename T>
struct AdagradRule {
  AdagradHyper h;
  EMBER_HOST_DEVICE AdagradUpdate<T> operator()(int64_t step) const {
    AdagradHyper at = h;
    at.step = step;
    return make_adagrad_update<T>(at);
  }
};

// RMSprop's rule does not depend on the step.
template <typename T, bool kMomentum, bool kCentered>
struct RmspropRule {
  RmspropHyper h;
  EMBER_HOST_DEVICE RmspropUpdate<T, kMomentum, kCentered> operator()(int64_t) const {
    return make_rmsprop_update<T, kMomentum, kCentered>(h);
  }
};

// Neither does SGD's without momentum.
template <typename T>
struct SgdPlainRule {
  SgdHyper h;
  EMBER_HOST_DEVICE SgdUpdate<T, false, false, false> operator()(int64_t) const {
    return make_sgd_update<T, false, false, false>(h);
  }
};

// SGD with momentum: the buffer's first step (buf = g) is the one that brings
// the count of its steps to 1, which only the device knows.
template <typename T, bool kNesterov>
struct SgdMomentumRule {
  struct Update {
    SgdUpdate<T, true, kNesterov, true> first;
    SgdUpdate<T, true, kNesterov, false> later;
    bool is_first;
    template <typename S>
    EMBER_HOST_DEVICE void operator()(S* p, const S* grad, S* buf, int64_t i) const {
      if (is_first)
        first(p, grad, buf, i);
      else
        later(p, grad, buf, i);
    }
  };
  SgdHyper h;
  EMBER_HOST_DEVICE Update operator()(int64_t step) const {
    return {make_sgd_update<T, true, kNesterov, true>(h),
            make_sgd_update<T, true, kNesterov, false>(h), step == 1};
  }
};

}  // namespace functors

// Host side of both backends: calls f.template operator()<B>() with the
// runtime flag b as the constant B, to pick a functor's template flags.
template <typename F>
void with_flag(bool b, const F& f) {
  if (b)
    f.template operator()<true>();
  else
    f.template operator()<false>();
}

}  // namespace ember
