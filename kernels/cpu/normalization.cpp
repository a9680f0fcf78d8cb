#include "ember/kernels/cpu/normalization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "ember/core/parallel.h"
#include "ember/kernels/common/normalization_functors.h"
#include "ember/kernels/common/through_compute_dtype.h"
#include "ember/kernels/cpu/loops.h"
#include "ember/kernels/cpu/simd_vector.h"

namespace ember::cpu {
namespace {

struct Sums {
  double s1 = 0, s2 = 0;
};

using simd::kLanesOf;
using simd::load;
using simd::splat;
using simd::Vec;

// Two sums over the n terms of one row (layer norm): terms(at) returns the
// pair of terms at one position, where at(p) reads p there: a Vec<T> of
// kLanes neighbours, or a T in the tail. Partial sums stay in vector lanes of
// T (no reassociation needed to vectorize, no conversion of float input) and
// move into double every kFlush vectors, so rounding stays that of short sums.
template <typename T, typename Terms>
Sums row_sums(int64_t n, const Terms& terms) {
  constexpr int kLanes = kLanesOf<T>;
  constexpr int kFlush = 64;
  Sums out;
  Vec<T> a0 = {}, b0 = {}, a1 = {}, b1 = {};  // two pairs: more adds in flight
  const auto flush = [&] {
    for (int l = 0; l < kLanes; ++l) {
      out.s1 += static_cast<double>(a0[l]) + static_cast<double>(a1[l]);
      out.s2 += static_cast<double>(b0[l]) + static_cast<double>(b1[l]);
    }
    a0 = b0 = a1 = b1 = Vec<T>{};
  };
  int64_t j = 0;
  while (j + 2 * kLanes <= n) {
    for (int v = 0; v < kFlush && j + 2 * kLanes <= n; ++v, j += 2 * kLanes) {
      const auto [p0, q0] = terms([j](const T* x) { return load(x + j); });
      const auto [p1, q1] = terms([j](const T* x) { return load(x + j + kLanes); });
      a0 += p0;
      b0 += q0;
      a1 += p1;
      b1 += q1;
    }
    flush();
  }
  for (; j < n; ++j) {
    const auto [p, q] = terms([j](const T* x) { return x[j]; });
    out.s1 += p;
    out.s2 += q;
  }
  return out;
}

// x: (N, C, S).
struct NCS {
  int64_t n, c, s;
};
NCS ncs_of(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1);
  return {n, c, n * c == 0 ? 0 : x.numel() / (n * c)};
}

// Channels per block of channel_block_sums: their accumulators stay in L1.
constexpr int64_t kChannelBlock = 32;

// row_sums for channels [c0, c0 + count) of (N, C, S) data at once, visiting
// memory in order (sample by sample, each channel's run of S in turn): small
// planes, such as 4x4, then stream instead of jumping C * S elements per run.
// terms(at, c) as row_sums', for channel c, at(p) reading p at the current
// position: a Vec<T> (from T, or widened from bfloat16 storage), or a T in the tail.
// out[k] receives channel c0 + k.
template <typename T, typename Terms>
void channel_block_sums(const NCS& d, int64_t c0, int64_t count, const Terms& terms, Sums* out) {
  constexpr int kLanes = kLanesOf<T>;
  Vec<T> acc[2 * kChannelBlock] = {};
  const int64_t vectors_per_run = d.s / kLanes;
  const int64_t flush_every = std::max<int64_t>(1, 64 / std::max<int64_t>(1, vectors_per_run));
  for (int64_t k = 0; k < count; ++k) out[k] = Sums{};
  for (int64_t i = 0; i < d.n; ++i) {
    for (int64_t k = 0; k < count; ++k) {
      const int64_t c = c0 + k, base = (i * d.c + c) * d.s;
      Vec<T> a0 = acc[2 * k], b0 = acc[2 * k + 1], a1 = {}, b1 = {};
      int64_t j = 0;
      for (; j + 2 * kLanes <= d.s; j += 2 * kLanes) {
        const int64_t at = base + j;
        const auto [p0, q0] = terms([at](const auto* x) { return load(x + at); }, c);
        const auto [p1, q1] = terms([at](const auto* x) { return load(x + at + kLanes); }, c);
        a0 += p0;
        b0 += q0;
        a1 += p1;
        b1 += q1;
      }
      for (; j + kLanes <= d.s; j += kLanes) {
        const int64_t at = base + j;
        const auto [p, q] = terms([at](const auto* x) { return load(x + at); }, c);
        a0 += p;
        b0 += q;
      }
      for (; j < d.s; ++j) {
        const int64_t at = base + j;
        const auto [p, q] = terms([at](const auto* x) { return static_cast<T>(x[at]); }, c);
        out[k].s1 += p;
        out[k].s2 += q;
      }
      acc[2 * k] = a0 + a1;
      acc[2 * k + 1] = b0 + b1;
    }
    if ((i + 1) % flush_every == 0 || i == d.n - 1) {
      for (int64_t k = 0; k < count; ++k) {
        for (int l = 0; l < kLanes; ++l) {
          out[k].s1 += static_cast<double>(acc[2 * k][l]);
          out[k].s2 += static_cast<double>(acc[2 * k + 1][l]);
        }
        acc[2 * k] = acc[2 * k + 1] = Vec<T>{};
      }
    }
  }
}

// Mean and biased variance of `count` values from their shifted sums.
std::pair<double, double> moments(const Sums& s, double shift, int64_t count) {
  const functors::Moments m = functors::moments_from_shifted_sums(s.s1, s.s2, shift, count);
  return {m.mean, m.var};
}

// y = (x - mean) * scale + shift over a run of n values; then max(y, 0) with Relu (NaN
// kept, as relu). S: the storage type of x and y, T: the compute type.
// bfloat16 runs go a vector at a time (load and store convert; GCC does not vectorize the
// scalar rounding's NaN branch).
template <bool Relu = false, typename S, typename T>
void affine_run(const S* x, S* y, int64_t n, T mean, T scale, T shift) {
  int64_t i = 0;
  if constexpr (std::is_same_v<S, BFloat16>) {
    const Vec<T> m = splat(mean), sc = splat(scale), sh = splat(shift);
    for (; i + kLanesOf<T> <= n; i += kLanesOf<T>) {
      const Vec<T> z = functors::normalize_affine(load(x + i), m, sc, sh);
      simd::store(y + i, Relu ? (z < T(0) ? Vec<T>{} : z) : z);
    }
  }
  for (; i < n; ++i) {
    const T z = functors::normalize_affine(static_cast<T>(x[i]), mean, scale, shift);
    y[i] = static_cast<S>(Relu && z < T(0) ? T(0) : z);
  }
}

// Channel c's affine map after normalizing: y = (x - mean) * scale + shift with
// scale = weight * invstd (from the stored invstd) and shift = bias. The forward
// passes and batch_norm_relu's backward mask take them from here, so the mask sees
// the very values the forward computed.
template <typename T>
T channel_scale(const T* w, const T* invstd, int64_t c) {
  return w ? w[c] * invstd[c] : invstd[c];
}
template <typename T>
T channel_shift(const T* b, int64_t c) {
  return b ? b[c] : T(0);
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}
template <typename T>
T* mutable_data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

int64_t grain_for(int64_t work_per_task) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_task));
}

}  // namespace

namespace {

// Note [bfloat16 batch norm on the CPU]
// Under autocast a conv's bfloat16 output reaches batch norm with float32 weights and
// statistics. Such calls (x, y, dy, dx bfloat16; every per-channel tensor float32) run the
// kernels below on the bfloat16 data itself: each element is widened as it is read and
// rounded once as it is stored, the sums and statistics are float32 and double as for a
// float32 input. Any other call with a 16-bit float (float16, or bfloat16 next to 16-bit
// weights) runs on float32 copies (Note [Kernels run through compute-dtype copies]): the
// copies cost a conversion pass per tensor each way, 11% of the autocast training step.
bool reads_bfloat16(std::initializer_list<const Tensor*> data,
                    std::initializer_list<const Tensor*> per_channel) {
  for (const Tensor* t : data)
    if (t->defined() && t->scalar_type() != kBFloat16) return false;
  for (const Tensor* t : per_channel)
    if (t->defined() && t->scalar_type() != kFloat) return false;
  return true;
}

bool any_16bit(std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors)
    if (t->defined() && is_reduced_floating_point(t->scalar_type())) return true;
  return false;
}

// Calls f.template operator()<S>() with the storage type the kernel runs on: bfloat16 for the
// calls of the Note, else float32 or float64 (x's dtype) when no tensor is 16-bit; the other
// calls run copies() (the kernel on float32 copies). data: x first, then the tensors shaped as
// x; per_channel: the (C) tensors.
template <typename Copies, typename F>
void dispatch_storage(std::initializer_list<const Tensor*> data,
                      std::initializer_list<const Tensor*> per_channel, const char* op,
                      const Copies& copies, const F& f) {
  if (reads_bfloat16(data, per_channel)) return f.template operator()<BFloat16>();
  if (any_16bit(data) || any_16bit(per_channel)) return copies();
  dispatch_floating((*data.begin())->scalar_type(), op, f);
}

// batch_norm_train_forward, and with Relu its relu form; x and y hold S, the rest T.
template <bool Relu, typename S>
void train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                   const Tensor& y, const Tensor& mean, const Tensor& var, const Tensor& invstd) {
  using T = opmath_t<S>;
  const NCS d = ncs_of(x);
  const S* xp = x.data_ptr<S>();
  S* yp = y.data_ptr<S>();
  T *mp = mean.data_ptr<T>(), *vp = var.data_ptr<T>(), *ip = invstd.data_ptr<T>();
  const T *w = data_or_null<T>(weight), *b = data_or_null<T>(bias);
  parallel_for(0, d.c, grain_for(2 * d.n * d.s), [&](int64_t c_begin, int64_t c_end) {
    for (int64_t c0 = c_begin; c0 < c_end; c0 += kChannelBlock) {
      const int64_t count = std::min(kChannelBlock, c_end - c0);
      Sums sums[kChannelBlock];
      channel_block_sums<T>(
          d, c0, count,
          [&](const auto& at, int64_t c) {
            // shifted by the channel's first value
            const auto dev = at(xp) - static_cast<T>(xp[c * d.s]);
            return std::pair{dev, dev * dev};
          },
          sums);
      T m[kChannelBlock], scale[kChannelBlock], offset[kChannelBlock];
      for (int64_t k = 0; k < count; ++k) {
        const int64_t c = c0 + k;
        const auto [mean_c, var_c] = moments(sums[k], static_cast<T>(xp[c * d.s]), d.n * d.s);
        const double inv = functors::batch_norm_invstd(var_c, eps);
        mp[c] = m[k] = static_cast<T>(mean_c);
        vp[c] = static_cast<T>(var_c);
        ip[c] = static_cast<T>(inv);
        // From the stored invstd, as batch_norm_apply and the CUDA kernel.
        scale[k] = channel_scale(w, ip, c);
        offset[k] = channel_shift(b, c);
      }
      for (int64_t i = 0; i < d.n; ++i)
        for (int64_t k = 0; k < count; ++k) {
          const int64_t at = (i * d.c + c0 + k) * d.s;
          affine_run<Relu>(xp + at, yp + at, d.s, m[k], scale[k], offset[k]);
        }
    }
  });
}

template <bool Relu>
void train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                   const Tensor& y, const Tensor& mean, const Tensor& var, const Tensor& invstd) {
  constexpr auto self = Relu ? &batch_norm_relu_train_forward : &batch_norm_train_forward;
  dispatch_storage(
      {&x, &y}, {&weight, &bias, &mean, &var, &invstd}, "batch_norm",
      [&] { ThroughFloat32<self, 4, 5, 6, 7>::call(x, weight, bias, eps, y, mean, var, invstd); },
      [&]<typename S>() { train_forward<Relu, S>(x, weight, bias, eps, y, mean, var, invstd); });
}

}  // namespace

void batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                              const Tensor& y, const Tensor& mean, const Tensor& var,
                              const Tensor& invstd) {
  train_forward<false>(x, weight, bias, eps, y, mean, var, invstd);
}

void batch_norm_relu_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                   double eps, const Tensor& y, const Tensor& mean,
                                   const Tensor& var, const Tensor& invstd) {
  train_forward<true>(x, weight, bias, eps, y, mean, var, invstd);
}

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& y) {
  const NCS d = ncs_of(x);
  const auto copies = [&] {
    ThroughFloat32<&batch_norm_apply, 5>::call(x, mean, invstd, weight, bias, y);
  };
  dispatch_storage({&x, &y}, {&mean, &invstd, &weight, &bias}, "batch_norm", copies,
                   [&]<typename S>() {
    using T = opmath_t<S>;
    const S* xp = x.data_ptr<S>();
    S* yp = y.data_ptr<S>();
    const T *mp = mean.data_ptr<T>(), *ip = invstd.data_ptr<T>();
    const T *w = data_or_null<T>(weight), *b = data_or_null<T>(bias);
    // One task per (n, c) run: eval batches are often small in C.
    parallel_for(0, d.n * d.c, grain_for(d.s), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t c = r % d.c;
        const T scale = channel_scale(w, ip, c), offset = channel_shift(b, c);
        affine_run(xp + r * d.s, yp + r * d.s, d.s, mp[c], scale, offset);
      }
    });
  });
}

namespace {

// batch_norm_backward, and with Relu batch_norm_relu_backward: dy counts only where
// the forward's z = normalize_affine(x, mean, weight * invstd, bias) is not <= 0,
// recomputed with the forward's own expression and operands. x, dy, dx hold S, the rest T.
template <bool Relu, typename S>
void backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& invstd,
              const Tensor& weight, const Tensor& bias, bool training, const Tensor& dx,
              const Tensor& dweight, const Tensor& dbias) {
  using T = opmath_t<S>;
  const NCS d = ncs_of(x);
  const S *xp = x.data_ptr<S>(), *gp = dy.data_ptr<S>();
  const T *mp = mean.data_ptr<T>(), *ip = invstd.data_ptr<T>(), *w = data_or_null<T>(weight);
  const T* b = data_or_null<T>(bias);
  S* dxp = mutable_data_or_null<S>(dx);
  T *dwp = mutable_data_or_null<T>(dweight), *dbp = mutable_data_or_null<T>(dbias);
  const double count_per_channel = static_cast<double>(d.n * d.s);
  parallel_for(0, d.c, grain_for(2 * d.n * d.s), [&](int64_t c_begin, int64_t c_end) {
    for (int64_t c0 = c_begin; c0 < c_end; c0 += kChannelBlock) {
      const int64_t count = std::min(kChannelBlock, c_end - c0);
      // g: sum dy and sum dy * (x - mean) per channel
      Sums g[kChannelBlock];
      if (dwp || dbp || training) {
        channel_block_sums<T>(
            d, c0, count,
            [&](const auto& at, int64_t c) {
              const auto xv = at(xp);
              auto dyv = at(gp);
              if constexpr (Relu) {
                // normalize_affine's expression, on a vector or a tail element
                const auto z = (xv - mp[c]) * channel_scale(w, ip, c) + channel_shift(b, c);
                dyv = z <= T(0) ? decltype(dyv){} : dyv;
              }
              return std::pair{dyv, dyv * (xv - mp[c])};
            },
            g);
      }
      // dx = (dy - mean(dy) - (x - mean) * inv^2 * mean(dy * (x - mean))) * inv * w
      T m[kChannelBlock], k_xmu[kChannelBlock], mean_dy[kChannelBlock], coef[kChannelBlock];
      for (int64_t k = 0; k < count; ++k) {
        const int64_t c = c0 + k;
        const double inv = ip[c];
        if (dbp) dbp[c] = static_cast<T>(g[k].s1);
        if (dwp) dwp[c] = static_cast<T>(g[k].s2 * inv);
        m[k] = mp[c];
        k_xmu[k] = static_cast<T>(training ? inv * inv * g[k].s2 / count_per_channel : 0.0);
        mean_dy[k] = static_cast<T>(training ? g[k].s1 / count_per_channel : 0.0);
        coef[k] = static_cast<T>(inv * (w ? static_cast<double>(w[c]) : 1.0));
      }
      if (!dxp) continue;
      for (int64_t i = 0; i < d.n; ++i)
        for (int64_t k = 0; k < count; ++k) {
          const int64_t at = (i * d.c + c0 + k) * d.s;
          const S *xr = xp + at, *gr = gp + at;
          S* out = dxp + at;
          const T mk = m[k], kk = k_xmu[k], mdy = mean_dy[k], ck = coef[k];
          const T sk = channel_scale(w, ip, c0 + k), bk = channel_shift(b, c0 + k);
          int64_t j = 0;
          if constexpr (std::is_same_v<S, BFloat16>) {  // as affine_run
            for (; j + kLanesOf<T> <= d.s; j += kLanesOf<T>) {
              const Vec<T> xj = load(xr + j);
              Vec<T> g = load(gr + j);
              if constexpr (Relu) {
                const Vec<T> z = functors::normalize_affine(xj, splat(mk), splat(sk), splat(bk));
                g = z <= T(0) ? Vec<T>{} : g;
              }
              simd::store(out + j, functors::batch_norm_grad_input(g, xj, splat(mk), splat(mdy),
                                                                   splat(kk), splat(ck)));
            }
          }
          for (; j < d.s; ++j) {
            const T xj = static_cast<T>(xr[j]);
            T g = static_cast<T>(gr[j]);
            if constexpr (Relu) g = functors::normalize_affine(xj, mk, sk, bk) <= T(0) ? T(0) : g;
            out[j] = static_cast<S>(functors::batch_norm_grad_input(g, xj, mk, mdy, kk, ck));
          }
        }
    }
  });
}

template <bool Relu>
void backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& invstd,
              const Tensor& weight, const Tensor& bias, bool training, const Tensor& dx,
              const Tensor& dweight, const Tensor& dbias) {
  const auto copies = [&] {
    if constexpr (Relu)
      ThroughFloat32<&batch_norm_relu_backward, 6, 7, 8>::call(x, dy, mean, invstd, weight, bias,
                                                               dx, dweight, dbias);
    else
      ThroughFloat32<&batch_norm_backward, 6, 7, 8>::call(x, dy, mean, invstd, weight, training,
                                                          dx, dweight, dbias);
  };
  dispatch_storage({&x, &dy, &dx}, {&mean, &invstd, &weight, &bias, &dweight, &dbias},
                   "batch_norm_backward", copies, [&]<typename S>() {
    backward<Relu, S>(x, dy, mean, invstd, weight, bias, training, dx, dweight, dbias);
  });
}

}  // namespace

void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  backward<false>(x, dy, mean, invstd, weight, Tensor(), training, dx, dweight, dbias);
}

void batch_norm_relu_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                              const Tensor& invstd, const Tensor& weight, const Tensor& bias,
                              const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  backward<true>(x, dy, mean, invstd, weight, bias, true, dx, dweight, dbias);
}

void layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& y, const Tensor& mean, const Tensor& rstd) {
  const int64_t rows = mean.numel(), k = rows == 0 ? 0 : x.numel() / rows;
  dispatch_floating(x.scalar_type(), "layer_norm", [&]<typename T>() {
    const T* xp = x.data_ptr<T>();
    T *yp = y.data_ptr<T>(), *mp = mean.data_ptr<T>(), *rp = rstd.data_ptr<T>();
    const T *w = data_or_null<T>(weight), *b = data_or_null<T>(bias);
    parallel_for(0, rows, grain_for(2 * k), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = xp + r * k;
        T* yr = yp + r * k;
        const T shift = xr[0];
        const Sums sums = row_sums<T>(k, [&](const auto& at) {
          const auto dev = at(xr) - shift;
          return std::pair{dev, dev * dev};
        });
        const auto [m, v] = moments(sums, shift, k);
        const T tm = static_cast<T>(m), inv = static_cast<T>(1.0 / std::sqrt(v + eps));
        mp[r] = tm;
        rp[r] = inv;
        if (w && b) {
          for (int64_t j = 0; j < k; ++j) yr[j] = (xr[j] - tm) * inv * w[j] + b[j];
        } else {
          for (int64_t j = 0; j < k; ++j)
            yr[j] = (xr[j] - tm) * inv * (w ? w[j] : T(1)) + (b ? b[j] : T(0));
        }
      }
    });
  });
}

void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight, const Tensor& dx, const Tensor& dweight,
                         const Tensor& dbias) {
  const int64_t rows = mean.numel();
  const int64_t k = layer_norm_backward_row_length(x, mean, dweight, dbias);
  dispatch_floating(x.scalar_type(), "layer_norm_backward", [&]<typename T>() {
    const T *xp = x.data_ptr<T>(), *gp = dy.data_ptr<T>();
    const T *mp = mean.data_ptr<T>(), *rp = rstd.data_ptr<T>(), *w = data_or_null<T>(weight);
    T *dxp = mutable_data_or_null<T>(dx), *dwp = mutable_data_or_null<T>(dweight),
      *dbp = mutable_data_or_null<T>(dbias);
    if (dxp) {
      // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = dy * w
      parallel_for(0, rows, grain_for(2 * k), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const T *xr = xp + r * k, *gr = gp + r * k;
          const double m = mp[r], inv = rp[r];
          const T tm = static_cast<T>(m), tinv = static_cast<T>(inv);
          const Sums s = row_sums<T>(k, [&](const auto& at) {
            const auto dxhat = w ? at(gr) * at(w) : at(gr);
            return std::pair{dxhat, dxhat * (at(xr) - tm) * tinv};
          });
          const T mean_dxhat = static_cast<T>(s.s1 / k), mean_dxhat_xhat = static_cast<T>(s.s2 / k);
          T* out = dxp + r * k;
          for (int64_t j = 0; j < k; ++j) {
            const T dxhat = gr[j] * (w ? w[j] : T(1));
            out[j] = functors::layer_norm_grad_input(dxhat, xr[j], tm, tinv, mean_dxhat,
                                                     mean_dxhat_xhat);
          }
        }
      });
    }
    if (!dwp && !dbp) return;
    // Column sums over the rows, one block of columns per task.
    constexpr int64_t kBlock = 256;
    const int64_t blocks = (k + kBlock - 1) / kBlock;
    parallel_for(0, blocks, grain_for(rows * kBlock), [&](int64_t b0, int64_t b1) {
      double acc_w[kBlock], acc_b[kBlock];
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t j0 = blk * kBlock, width = std::min(kBlock, k - j0);
        std::fill(acc_w, acc_w + width, 0.0);
        std::fill(acc_b, acc_b + width, 0.0);
        for (int64_t r = 0; r < rows; ++r) {
          const T *xr = xp + r * k + j0, *gr = gp + r * k + j0;
          const double m = mp[r], inv = rp[r];
          for (int64_t j = 0; j < width; ++j) {
            acc_w[j] += static_cast<double>(gr[j]) * (static_cast<double>(xr[j]) - m) * inv;
            acc_b[j] += gr[j];
          }
        }
        for (int64_t j = 0; j < width; ++j) {
          if (dwp) dwp[j0 + j] = static_cast<T>(acc_w[j]);
          if (dbp) dbp[j0 + j] = static_cast<T>(acc_b[j]);
        }
      }
    });
  });
}

}  // namespace ember::cpu
