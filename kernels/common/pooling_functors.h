#pragma once
// Index maths of pooling and upsampling, shared by the CPU kernels
// (kernels/cpu/{pooling,upsample}.cpp) and the CUDA kernels
// (kernels/cuda/{pooling,upsample}_kernels.cu): which input rows (or columns)
// one output row reads, and with what divisor or weights. Rows and columns
// use the same functions.
#include <cmath>
#include <cstdint>

#include "ember/kernels/common/exact_math.h"
#include "ember/kernels/common/macros.h"

namespace ember::functors {

// The geometry of a pooling window over (H, W) planes.
struct PoolWindow {
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h = 1, dilation_w = 1;
};

// The input rows [begin, end) one output row reads (stepping by the dilation
// for max pooling) and, for average pooling, its factor of the divisor.
struct PoolSpan {
  int64_t begin, end, factor;
};

// Max pooling: output i's window clipped to the input (padding is -inf,
// never chosen over an input value); begin is its first row inside the input.
EMBER_HOST_DEVICE PoolSpan max_pool_span(int64_t i, int64_t in, int64_t kernel, int64_t stride,
                                         int64_t pad, int64_t dilation) {
  int64_t begin = i * stride - pad;
  const int64_t end = begin + (kernel - 1) * dilation + 1 < in ? begin + (kernel - 1) * dilation + 1
                                                               : in;
  if (begin < 0) begin += (-begin + dilation - 1) / dilation * dilation;
  return {begin, end, 1};
}

// The inverse of a pooling window, for the gather-form backward: whether the
// window of some output o, at kernel offset k, reads input i (i = o * stride
// - pad + k * dilation with 0 <= o < out), and which o.
EMBER_HOST_DEVICE bool pool_output_reading(int64_t i, int64_t k, int64_t stride, int64_t pad,
                                           int64_t dilation, int64_t out, int64_t& o) {
  const int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0) return false;
  o = t / stride;
  return o < out;
}

// Max pooling picks v over the current best when larger, or NaN (as PyTorch);
// bitwise | keeps the CPU loop branch-free.
template <typename T>
EMBER_HOST_DEVICE bool max_pool_takes(T v, T best) {
  return (v > best) | (v != v);
}

// Average pooling, PyTorch's divisor rule: the window cut at the end of the
// padding counts whole with count_include_pad, else only its part inside the
// input. The divisor is the product of the row and the column factors.
EMBER_HOST_DEVICE PoolSpan avg_pool_span(int64_t i, int64_t in, int64_t kernel, int64_t stride,
                                         int64_t pad, bool count_include_pad) {
  const int64_t start = i * stride - pad;
  const int64_t padded_end = start + kernel < in + pad ? start + kernel : in + pad;
  const int64_t begin = start > 0 ? start : 0, end = padded_end < in ? padded_end : in;
  return {begin, end, count_include_pad ? padded_end - start : end - begin};
}

// Adaptive pooling: output i of `out` averages inputs
// [floor(i * in / out), ceil((i + 1) * in / out)). The same span with in and
// out swapped is the outputs whose windows hold input i (floor(o*in/out) <= i
// <=> o < ceil((i+1)*out/in), and i < ceil((o+1)*in/out) <=> o >= floor(i*out/in)),
// which the gather-form backward walks.
EMBER_HOST_DEVICE PoolSpan adaptive_span(int64_t i, int64_t in, int64_t out) {
  const int64_t begin = i * in / out, end = ((i + 1) * in + out - 1) / out;
  return {begin, end, end - begin};
}

// Adaptive max pooling of one output: the maximum of its adaptive window
// (rows r, columns c) of the plane xp (width w), scanned row-major so ties
// keep the first maximum, and its flat position in the plane.
template <typename T>
EMBER_HOST_DEVICE T adaptive_window_max(const T* xp, int64_t w, PoolSpan r, PoolSpan c,
                                        int64_t& at) {
  T best = xp[r.begin * w + c.begin];
  at = r.begin * w + c.begin;
  for (int64_t ih = r.begin; ih < r.end; ++ih)
    for (int64_t iw = c.begin; iw < c.end; ++iw) {
      const T v = xp[ih * w + iw];
      if (max_pool_takes(v, best)) {
        best = v;
        at = ih * w + iw;
      }
    }
  return best;
}

// Nearest upsampling: the source row of output d, as PyTorch's nearest_idx:
// exact for equal sizes and for doubling, else floor of a float product
// (truncation: the product is not negative).
EMBER_HOST_DEVICE int64_t nearest_source(int64_t d, int64_t in, int64_t out) {
  if (out == in) return d;
  if (out == 2 * in) return d >> 1;
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const auto src = static_cast<int64_t>(static_cast<float>(d) * scale);
  return src < in - 1 ? src : in - 1;
}

// The outputs [begin, end) that copy input i (factor: their count), for the
// gather-form backward: nearest_source is monotone in the output, so they are
// a run, found from an estimate corrected both ways (empty when downsampling
// skips i).
EMBER_HOST_DEVICE PoolSpan nearest_outputs(int64_t i, int64_t in, int64_t out) {
  int64_t lo = i * out / in;
  if (lo > out) lo = out;
  while (lo > 0 && nearest_source(lo - 1, in, out) >= i) --lo;
  while (lo < out && nearest_source(lo, in, out) < i) ++lo;
  int64_t hi = lo;
  while (hi < out && nearest_source(hi, in, out) == i) ++hi;
  return {lo, hi, hi - lo};
}

// Bilinear upsampling: the two source rows of an output row and their weights
// (not named Lerp: that is the lerp op's functor, pointwise_functors.h).
template <typename T>
struct BilinearTaps {
  int64_t i0, i1;
  T l0, l1;
};

// PyTorch's area_pixel_compute_scale.
template <typename T>
EMBER_HOST_DEVICE T bilinear_scale(int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return static_cast<T>(in) / static_cast<T>(out);
}

// PyTorch's area_pixel_compute_source_index and the neighbours' weights, in
// T's arithmetic.
template <typename T>
EMBER_HOST_DEVICE BilinearTaps<T> bilinear_source(int64_t d, int64_t in, T scale,
                                                  bool align_corners) {
  T real = align_corners ? scale * static_cast<T>(d)
                         : exact::fma(scale, static_cast<T>(d) + T(0.5), T(-0.5));
  if (real < 0) real = 0;
  const int64_t i0 = static_cast<int64_t>(real) < in - 1 ? static_cast<int64_t>(real) : in - 1;
  T l1 = real - static_cast<T>(i0);
  l1 = l1 < T(0) ? T(0) : (l1 > T(1) ? T(1) : l1);
  return {i0, i0 < in - 1 ? i0 + 1 : i0, T(1) - l1, l1};
}

}  // namespace ember::functors
