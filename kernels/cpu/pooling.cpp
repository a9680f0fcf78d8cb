#include "ember/kernels/cpu/pooling.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/planes.h"

namespace ember::cpu {
namespace {

using Span = functors::PoolSpan;

// The span of every output row (or column) under one of the span functors.
template <typename F>
std::vector<Span> spans(int64_t out, const F& span_of) {
  std::vector<Span> result(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) result[i] = span_of(i);
  return result;
}

std::vector<Span> max_spans(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                            int64_t dilation) {
  return spans(out, [&](int64_t i) {
    return functors::max_pool_span(i, in, kernel, stride, pad, dilation);
  });
}

std::vector<Span> avg_spans(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                            bool count_include_pad) {
  return spans(out, [&](int64_t i) {
    return functors::avg_pool_span(i, in, kernel, stride, pad, count_include_pad);
  });
}

// For each kernel column kw, the outputs [lo, hi) whose input column
// ow * stride - pad + kw * dilation lies inside the input.
std::vector<std::pair<int64_t, int64_t>> kernel_column_ranges(int64_t in_w, int64_t out_w,
                                                              int64_t kernel, int64_t stride,
                                                              int64_t pad, int64_t dilation) {
  std::vector<std::pair<int64_t, int64_t>> ranges(static_cast<size_t>(kernel));
  for (int64_t kw = 0; kw < kernel; ++kw) {
    const int64_t offset = kw * dilation - pad;  // the input column of output 0
    int64_t lo = 0, hi = out_w;
    while (lo < hi && lo * stride + offset < 0) ++lo;
    while (hi > lo && (hi - 1) * stride + offset >= in_w) --hi;
    ranges[kw] = {lo, hi};
  }
  return ranges;
}

std::vector<Span> adaptive_spans(int64_t in, int64_t out) {
  return spans(out, [&](int64_t i) { return functors::adaptive_span(i, in, out); });
}

// Sum of n contiguous values in independent partial sums, which vectorize
// without reassociating one sum (global pooling reads whole planes).
template <typename T>
T contiguous_sum(const T* x, int64_t n) {
  constexpr int kLanes = 16;
  T part[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) part[l] += x[i + l];
  T sum = 0;
  for (; i < n; ++i) sum += x[i];
  for (int l = 0; l < kLanes; ++l) sum += part[l];
  return sum;
}

// Adaptive pooling, one output at a time (its windows differ in size):
// out[oh][ow] = mean of x over the rows x cols window of each plane.
template <typename T>
void average_windows(const Tensor& x, const Tensor& out, const Planes& p,
                     const std::vector<Span>& rows, const std::vector<Span>& cols) {
  const T* in = x.data_ptr<T>();
  T* o = out.data_ptr<T>();
  for_each_plane(p, p.in_h * p.in_w + p.out_h * p.out_w, [&](int64_t plane) {
    const T* xp = in + plane * p.in_h * p.in_w;
    T* op = o + plane * p.out_h * p.out_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const Span& r = rows[oh];
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const Span& c = cols[ow];
        T sum = 0;
        for (int64_t ih = r.begin; ih < r.end; ++ih)
          sum += contiguous_sum(xp + ih * p.in_w + c.begin, c.end - c.begin);
        op[oh * p.out_w + ow] = sum / static_cast<T>(r.factor * c.factor);
      }
    }
  });
}

// The adjoint of average_windows: grad_in = each output's gradient spread
// over its window.
template <typename T>
void spread_windows(const Tensor& grad_out, const Tensor& grad_in, const Planes& p,
                    const std::vector<Span>& rows, const std::vector<Span>& cols) {
  const T* g = grad_out.data_ptr<T>();
  T* gi = grad_in.data_ptr<T>();
  for_each_plane(p, p.in_h * p.in_w + p.out_h * p.out_w, [&](int64_t plane) {
    const T* gp = g + plane * p.out_h * p.out_w;
    T* ip = gi + plane * p.in_h * p.in_w;
    std::fill(ip, ip + p.in_h * p.in_w, T(0));
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const Span& r = rows[oh];
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const Span& c = cols[ow];
        const T share = gp[oh * p.out_w + ow] / static_cast<T>(r.factor * c.factor);
        for (int64_t ih = r.begin; ih < r.end; ++ih)
          for (int64_t iw = c.begin; iw < c.end; ++iw) ip[ih * p.in_w + iw] += share;
      }
    }
  });
}

}  // namespace

void max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices, const PoolWindow& w) {
  const Planes p = planes_of(x, out);
  EMBER_CHECK(p.in_h * p.in_w < (int64_t(1) << 31), "max_pool2d: planes of 2^31 elements or more (",
              p.in_h, "x", p.in_w, ") are not supported");
  const std::vector<Span> rows =
      max_spans(p.in_h, p.out_h, w.kernel_h, w.stride_h, w.pad_h, w.dilation_h);
  const auto inside =
      kernel_column_ranges(p.in_w, p.out_w, w.kernel_w, w.stride_w, w.pad_w, w.dilation_w);
  // The first input column of each output's window (where its index points
  // when every value is -inf).
  std::vector<int32_t> first_col(static_cast<size_t>(p.out_w));
  for (int64_t ow = 0; ow < p.out_w; ++ow) {
    int64_t c = ow * w.stride_w - w.pad_w;
    while (c < 0) c += w.dilation_w;
    first_col[ow] = static_cast<int32_t>(c);
  }
  dispatch_floating(x.scalar_type(), "max_pool2d", [&]<typename T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    const int64_t rows_total = p.count * p.out_h;
    const int64_t grain =
        std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.out_w * w.kernel_h * w.kernel_w));
    parallel_for(0, rows_total, grain, [&](int64_t begin, int64_t end) {
      // One output row at a time, in local buffers (no aliasing with the
      // input, 32-bit positions: the loops over outputs vectorize). Each
      // window is visited in row-major order, so ties keep the first maximum.
      std::vector<T> best_buf(static_cast<size_t>(p.out_w));
      std::vector<int32_t> at_buf(static_cast<size_t>(p.out_w));
      T* __restrict best = best_buf.data();
      int32_t* __restrict at = at_buf.data();
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / p.out_h, oh = row % p.out_h;
        const T* xp = in + plane * p.in_h * p.in_w;
        const Span& r = rows[oh];
        const auto first_row = static_cast<int32_t>(r.begin * p.in_w);
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          best[ow] = -std::numeric_limits<T>::infinity();
          at[ow] = first_row + first_col[ow];
        }
        for (int64_t ih = r.begin; ih < r.end; ih += w.dilation_h)
          for (int64_t kw = 0; kw < w.kernel_w; ++kw) {
            const int64_t offset = kw * w.dilation_w - w.pad_w, stride = w.stride_w;
            const T* __restrict src = xp + ih * p.in_w;
            const auto src_at = static_cast<int32_t>(ih * p.in_w + offset);
            const auto [lo, hi] = inside[kw];
            for (int64_t ow = lo; ow < hi; ++ow) {
              const T v = src[ow * stride + offset];
              const bool take = functors::max_pool_takes(v, best[ow]);
              best[ow] = take ? v : best[ow];
              at[ow] = take ? src_at + static_cast<int32_t>(ow * stride) : at[ow];
            }
          }
        std::copy(best, best + p.out_w, o + row * p.out_w);
        std::copy(at, at + p.out_w, idx + row * p.out_w);
      }
    });
  });
}

// Average pooling runs as max pooling does: a whole output row at a time,
// each (input row, kernel column) pass a branch-free loop over outputs.
void avg_pool2d(const Tensor& x, const Tensor& out, const PoolWindow& w, bool count_include_pad) {
  const Planes p = planes_of(x, out);
  const auto rows = avg_spans(p.in_h, p.out_h, w.kernel_h, w.stride_h, w.pad_h, count_include_pad);
  const auto cols = avg_spans(p.in_w, p.out_w, w.kernel_w, w.stride_w, w.pad_w, count_include_pad);
  const auto inside = kernel_column_ranges(p.in_w, p.out_w, w.kernel_w, w.stride_w, w.pad_w, 1);
  dispatch_floating(x.scalar_type(), "avg_pool2d", [&]<typename T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t grain =
        std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.out_w * w.kernel_h * w.kernel_w));
    parallel_for(0, p.count * p.out_h, grain, [&](int64_t begin, int64_t end) {
      std::vector<T> sum_buf(static_cast<size_t>(p.out_w));
      T* __restrict sum = sum_buf.data();
      for (int64_t row = begin; row < end; ++row) {
        const int64_t plane = row / p.out_h, oh = row % p.out_h;
        const Span& r = rows[oh];
        std::fill(sum, sum + p.out_w, T(0));
        for (int64_t ih = r.begin; ih < r.end; ++ih)
          for (int64_t kw = 0; kw < w.kernel_w; ++kw) {
            const T* __restrict src = in + (plane * p.in_h + ih) * p.in_w;
            const auto [lo, hi] = inside[kw];
            const int64_t stride = w.stride_w, offset = kw - w.pad_w;
            for (int64_t ow = lo; ow < hi; ++ow) sum[ow] += src[ow * stride + offset];
          }
        T* dst = o + row * p.out_w;
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          const int64_t divisor = r.factor * cols[ow].factor;
          dst[ow] = divisor > 0 ? sum[ow] / static_cast<T>(divisor) : T(0);
        }
      }
    });
  });
}

void avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in, const PoolWindow& w,
                         bool count_include_pad) {
  const Planes p = planes_of(grad_in, grad_out);
  const auto rows = avg_spans(p.in_h, p.out_h, w.kernel_h, w.stride_h, w.pad_h, count_include_pad);
  const auto cols = avg_spans(p.in_w, p.out_w, w.kernel_w, w.stride_w, w.pad_w, count_include_pad);
  const auto inside = kernel_column_ranges(p.in_w, p.out_w, w.kernel_w, w.stride_w, w.pad_w, 1);
  dispatch_floating(grad_out.scalar_type(), "avg_pool2d_backward", [&]<typename T>() {
    const T* g = grad_out.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    // Split over planes: the windows of neighbouring output rows overlap.
    const int64_t work = p.in_h * p.in_w + p.out_h * p.out_w * w.kernel_h * w.kernel_w;
    parallel_for(0, p.count, std::max<int64_t>(1, kGrainSize / work), [&](int64_t b, int64_t e) {
      std::vector<T> share_buf(static_cast<size_t>(p.out_w));
      T* __restrict share = share_buf.data();
      for (int64_t plane = b; plane < e; ++plane) {
        T* ip = gi + plane * p.in_h * p.in_w;
        std::fill(ip, ip + p.in_h * p.in_w, T(0));
        for (int64_t oh = 0; oh < p.out_h; ++oh) {
          const Span& r = rows[oh];
          const T* gr = g + (plane * p.out_h + oh) * p.out_w;
          for (int64_t ow = 0; ow < p.out_w; ++ow) {
            const int64_t divisor = r.factor * cols[ow].factor;
            share[ow] = divisor > 0 ? gr[ow] / static_cast<T>(divisor) : T(0);
          }
          for (int64_t ih = r.begin; ih < r.end; ++ih)
            for (int64_t kw = 0; kw < w.kernel_w; ++kw) {
              T* __restrict dst = ip + ih * p.in_w;
              const auto [lo, hi] = inside[kw];
              const int64_t stride = w.stride_w, offset = kw - w.pad_w;
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow * stride + offset] += share[ow];
            }
        }
      }
    });
  });
}

void adaptive_avg_pool2d(const Tensor& x, const Tensor& out) {
  const Planes p = planes_of(x, out);
  const auto rows = adaptive_spans(p.in_h, p.out_h), cols = adaptive_spans(p.in_w, p.out_w);
  dispatch_floating(x.scalar_type(), "adaptive_avg_pool2d",
                    [&]<typename T>() { average_windows<T>(x, out, p, rows, cols); });
}

void adaptive_max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices) {
  const Planes p = planes_of(x, out);
  const auto rows = adaptive_spans(p.in_h, p.out_h), cols = adaptive_spans(p.in_w, p.out_w);
  dispatch_floating(x.scalar_type(), "adaptive_max_pool2d", [&]<typename T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    for_each_plane(p, p.in_h * p.in_w, [&](int64_t plane) {
      const T* xp = in + plane * p.in_h * p.in_w;
      for (int64_t oh = 0; oh < p.out_h; ++oh)
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          const int64_t i = (plane * p.out_h + oh) * p.out_w + ow;
          o[i] = functors::adaptive_window_max(xp, p.in_w, rows[oh], cols[ow], idx[i]);
        }
    });
  });
}

void adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in) {
  const Planes p = planes_of(grad_in, grad_out);
  const auto rows = adaptive_spans(p.in_h, p.out_h), cols = adaptive_spans(p.in_w, p.out_w);
  dispatch_floating(grad_out.scalar_type(), "adaptive_avg_pool2d_backward",
                    [&]<typename T>() { spread_windows<T>(grad_out, grad_in, p, rows, cols); });
}

}  // namespace ember::cpu
