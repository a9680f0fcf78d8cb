#include "ember/kernels/cpu/cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

// GCC 12 reports false "(may be) used uninitialized" warnings inside the
// AVX-512 intrinsics that Eigen's vectorized exp() inlines (as in gemm.cpp);
// at -O1 (the sanitizer build) they come as -Wuninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <Eigen/Core>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/kernels/cpu/loops.h"
#include "ember/kernels/cpu/softmax.h"

namespace ember::cpu {

namespace {

// Outer slices per task: each slice is C * inner values.
int64_t slice_grain(const CrossEntropyShape& s) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, s.classes * s.inner));
}

// sum over the classes of weight[c] (1 when null).
template <typename T>
double class_weight_sum(const T* weight, int64_t classes) {
  if (!weight) return static_cast<double>(classes);
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c) sum += weight[c];
  return sum;
}

// Contiguous lines (inner == 1) go through Eigen arrays, whose exp() is vectorized.
template <typename T>
using ConstLine = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using Line = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// log(sum_c exp(x[c])) of one contiguous line, shifted by its maximum (a line
// holding +inf, or only -inf, gives NaN, as PyTorch's cross_entropy); the sum
// in double.
template <typename T>
T line_logsumexp(const T* x, int64_t classes) {
  if (classes == 0) return -std::numeric_limits<T>::infinity();
  double shift;
  softmax_detail::line_shifts(x, classes, 1, 1, &shift);
  const double sum = (ConstLine<T>(x, classes) - static_cast<T>(shift)).exp()
                         .template cast<double>().sum();
  return static_cast<T>(shift + std::log(sum));
}

// acc[j] = sum_c w[c] * x[c * inner + j] for one (C, inner) slice.
template <typename T>
void weighted_class_sums(const T* x, const T* weight, int64_t classes, int64_t inner,
                         double* acc) {
  if (inner == 1) {
    const ConstLine<T> xl(x, classes);
    acc[0] = weight ? (xl * ConstLine<T>(weight, classes)).template cast<double>().sum()
                    : xl.template cast<double>().sum();
    return;
  }
  std::fill(acc, acc + inner, 0.0);
  for (int64_t c = 0; c < classes; ++c) {
    const double w = weight ? static_cast<double>(weight[c]) : 1.0;
    const T* row = x + c * inner;
    for (int64_t j = 0; j < inner; ++j) acc[j] += w * row[j];
  }
}

// dx[c] = exp(x[c] - lse) * a - b * w[c] over one contiguous line of C classes.
template <typename T>
void softmax_grad_line(const T* x, const T* weight, int64_t classes, T lse, T a, T b, T* dx) {
  const ConstLine<T> xl(x, classes);
  Line<T> dxl(dx, classes);
  if (weight)
    dxl = (xl - lse).exp() * a - b * ConstLine<T>(weight, classes);
  else
    dxl = (xl - lse).exp() * a - b;
}

}  // namespace

template <typename T>
void cross_entropy_forward(const T* x, const T* weight, const CrossEntropyShape& s,
                           const CrossEntropyParams& p, T* lse, T* loss) {
  if (s.lines() == 0) return;
  // Strided lines: the shared kernel first; contiguous ones below, row by row.
  if (s.inner > 1) logsumexp<T>(x, lse, s.outer, s.classes, s.inner);
  const int64_t classes = s.classes, inner = s.inner;
  const double e = p.label_smoothing, keep = 1 - e;
  const double e_per_class = classes > 0 ? e / classes : 0.0;
  const double weight_total = class_weight_sum(weight, classes);
  parallel_for(0, s.outer, slice_grain(s), [&](int64_t begin, int64_t end) {
    std::vector<double> smooth(e > 0 ? inner : 0);  // sum_c w[c] x[c] per line
    for (int64_t o = begin; o < end; ++o) {
      const T* xo = x + o * classes * inner;
      if (inner == 1) lse[o] = line_logsumexp(xo, classes);
      if (e > 0) weighted_class_sums(xo, weight, classes, inner, smooth.data());
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t l = o * inner + j, t = p.target[l];
        if (t == p.ignore_index) {
          loss[l] = 0;
          continue;
        }
        const double w = weight ? static_cast<double>(weight[t]) : 1.0;
        const double lse_l = lse[l];
        double v = keep * w * (lse_l - xo[t * inner + j]);
        if (e > 0) v += e_per_class * (weight_total * lse_l - smooth[j]);
        loss[l] = static_cast<T>(v);
      }
    }
  });
}

template <typename T>
void cross_entropy_backward(const T* x, const T* weight, const T* lse, const T* grad,
                            int64_t grad_stride, double scale, const CrossEntropyShape& s,
                            const CrossEntropyParams& p, T* dx) {
  if (s.lines() == 0 || s.classes == 0) return;
  const int64_t classes = s.classes, inner = s.inner;
  const double e = p.label_smoothing, keep = 1 - e;
  const double e_per_class = e / classes;
  const double weight_total = class_weight_sum(weight, classes);
  parallel_for(0, s.outer, slice_grain(s), [&](int64_t begin, int64_t end) {
    // Per line of the slice: the softmax factor a and the smoothing factor b.
    std::vector<T> a(inner), b(inner);
    for (int64_t o = begin; o < end; ++o) {
      const T* xo = x + o * classes * inner;
      T* dxo = dx + o * classes * inner;
      const T* lse_o = lse + o * inner;
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t l = o * inner + j, t = p.target[l];
        const double g = t == p.ignore_index ? 0.0 : grad[l * grad_stride] * scale;
        const double w = t == p.ignore_index ? 0.0 : (weight ? weight[t] : 1.0);
        a[j] = static_cast<T>(g * (keep * w + e_per_class * weight_total));
        b[j] = static_cast<T>(g * e_per_class);
      }
      if (inner == 1) {
        softmax_grad_line(xo, weight, classes, lse_o[0], a[0], b[0], dxo);
      } else {
        // Row c of the slice: dx[c, j] = exp(x[c, j] - lse[j]) * a[j] - b[j] * w[c].
        const ConstLine<T> lse_row(lse_o, inner), a_row(a.data(), inner), b_row(b.data(), inner);
        for (int64_t c = 0; c < classes; ++c) {
          const T w = weight ? weight[c] : T(1);
          Line<T>(dxo + c * inner, inner) =
              (ConstLine<T>(xo + c * inner, inner) - lse_row).exp() * a_row - b_row * w;
        }
      }
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t l = o * inner + j, t = p.target[l];
        if (t == p.ignore_index) {
          // Exactly 0, even where x holds inf (inf - inf would give NaN * 0).
          for (int64_t c = 0; c < classes; ++c) dxo[c * inner + j] = 0;
          continue;
        }
        const double w = weight ? static_cast<double>(weight[t]) : 1.0;
        dxo[t * inner + j] -= static_cast<T>(grad[l * grad_stride] * scale * keep * w);
      }
    }
  });
}

#define EMBER_INSTANTIATE_CROSS_ENTROPY(T)                                                    \
  template void cross_entropy_forward<T>(const T*, const T*, const CrossEntropyShape&,        \
                                         const CrossEntropyParams&, T*, T*);                  \
  template void cross_entropy_backward<T>(const T*, const T*, const T*, const T*, int64_t,    \
                                          double, const CrossEntropyShape&,                   \
                                          const CrossEntropyParams&, T*);
EMBER_INSTANTIATE_CROSS_ENTROPY(float)
EMBER_INSTANTIATE_CROSS_ENTROPY(double)
#undef EMBER_INSTANTIATE_CROSS_ENTROPY

// ---- The table's entry points ----

namespace {

CrossEntropyShape shape_of(const CrossEntropyArgs& a) { return {a.outer, a.classes, a.inner}; }

CrossEntropyParams params_of(const CrossEntropyArgs& a) {
  return {a.target.data_ptr<int64_t>(), a.ignore_index, a.label_smoothing};
}

template <typename T>
const T* weight_or_null(const CrossEntropyArgs& a) {
  return a.weight.defined() ? a.weight.data_ptr<T>() : nullptr;
}

}  // namespace

// The kernels walk classes at any inner stride in place.
bool cross_entropy_by_columns() { return true; }

void check_class_targets(const char* op, const Tensor& target, int64_t classes,
                         int64_t ignore_index) {
  const Tensor t = target.contiguous();
  const int64_t* v = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (v[i] == ignore_index || (v[i] >= 0 && v[i] < classes)) continue;
    EMBER_ERROR(op, ": target ", v[i], " is out of bounds for ", classes,
                " classes (valid range [0, ", classes - 1, "], or ignore_index ", ignore_index,
                ")");
  }
}

void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight) {
  // The loops read x[t] unchecked.
  check_class_targets("cross_entropy", args.target, args.classes, args.ignore_index);
  const CrossEntropyParams p = params_of(args);
  dispatch_floating(x.scalar_type(), "cross_entropy", [&]<typename T>() {
    const T* w = weight_or_null<T>(args);
    cross_entropy_forward<T>(x.data_ptr<T>(), w, shape_of(args), p, lse.data_ptr<T>(),
                             loss.data_ptr<T>());
    if (!line_weight.defined()) return;
    T* lw = line_weight.data_ptr<T>();
    for (int64_t l = 0; l < args.lines(); ++l) {
      const int64_t t = p.target[l];
      lw[l] = t == p.ignore_index ? T(0) : (w ? w[t] : T(1));
    }
  });
}

void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx) {
  const double s = scale.defined() ? *scale.data_ptr<double>() : 1.0;
  dispatch_floating(x.scalar_type(), "cross_entropy", [&]<typename T>() {
    cross_entropy_backward<T>(x.data_ptr<T>(), weight_or_null<T>(args), lse.data_ptr<T>(),
                              grad.data_ptr<T>(), grad_stride, s, shape_of(args),
                              params_of(args), dx.data_ptr<T>());
  });
}

}  // namespace ember::cpu
