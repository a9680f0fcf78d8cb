#include "ember/kernels/cpu/upsample.h"

#include <cmath>
#include <vector>

#include "ember/kernels/common/pooling_functors.h"
#include "ember/kernels/cpu/planes.h"

namespace ember::cpu {
namespace {

using functors::BilinearTaps;

std::vector<int64_t> nearest_sources(int64_t in, int64_t out) {
  std::vector<int64_t> src(static_cast<size_t>(out));
  for (int64_t d = 0; d < out; ++d) src[d] = functors::nearest_source(d, in, out);
  return src;
}

template <typename T>
std::vector<BilinearTaps<T>> bilinear_sources(int64_t in, int64_t out, bool align_corners) {
  const T scale = functors::bilinear_scale<T>(in, out, align_corners);
  std::vector<BilinearTaps<T>> src(static_cast<size_t>(out));
  for (int64_t d = 0; d < out; ++d) src[d] = functors::bilinear_source(d, in, scale, align_corners);
  return src;
}

}  // namespace

void upsample_nearest2d(const Tensor& x, const Tensor& out) {
  const Planes p = planes_of(x, out);
  const std::vector<int64_t> rows = nearest_sources(p.in_h, p.out_h);
  const std::vector<int64_t> cols = nearest_sources(p.in_w, p.out_w);
  dispatch_floating(x.scalar_type(), "upsample_nearest2d", [&]<typename T>() {
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for_each_plane(p, p.out_h * p.out_w, [&](int64_t plane) {
      const T* xp = in + plane * p.in_h * p.in_w;
      T* op = o + plane * p.out_h * p.out_w;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        const T* row = xp + rows[oh] * p.in_w;
        for (int64_t ow = 0; ow < p.out_w; ++ow) op[oh * p.out_w + ow] = row[cols[ow]];
      }
    });
  });
}

void upsample_nearest2d_backward(const Tensor& grad_out, const Tensor& grad_in) {
  const Planes p = planes_of(grad_in, grad_out);
  const std::vector<int64_t> rows = nearest_sources(p.in_h, p.out_h);
  const std::vector<int64_t> cols = nearest_sources(p.in_w, p.out_w);
  dispatch_floating(grad_out.scalar_type(), "upsample_nearest2d_backward", [&]<typename T>() {
    const T* g = grad_out.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    for_each_plane(p, p.in_h * p.in_w + p.out_h * p.out_w, [&](int64_t plane) {
      const T* gp = g + plane * p.out_h * p.out_w;
      T* ip = gi + plane * p.in_h * p.in_w;
      std::fill(ip, ip + p.in_h * p.in_w, T(0));
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        T* row = ip + rows[oh] * p.in_w;
        for (int64_t ow = 0; ow < p.out_w; ++ow) row[cols[ow]] += gp[oh * p.out_w + ow];
      }
    });
  });
}

void upsample_bilinear2d(const Tensor& x, const Tensor& out, bool align_corners) {
  const Planes p = planes_of(x, out);
  dispatch_floating(x.scalar_type(), "upsample_bilinear2d", [&]<typename T>() {
    const std::vector<BilinearTaps<T>> rows = bilinear_sources<T>(p.in_h, p.out_h, align_corners);
    const std::vector<BilinearTaps<T>> cols = bilinear_sources<T>(p.in_w, p.out_w, align_corners);
    const T* in = x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for_each_plane(p, 4 * p.out_h * p.out_w, [&](int64_t plane) {
      const T* xp = in + plane * p.in_h * p.in_w;
      T* op = o + plane * p.out_h * p.out_w;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        const BilinearTaps<T>& r = rows[oh];
        const T* top = xp + r.i0 * p.in_w;
        const T* bottom = xp + r.i1 * p.in_w;
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          const BilinearTaps<T>& c = cols[ow];
          op[oh * p.out_w + ow] = r.l0 * (c.l0 * top[c.i0] + c.l1 * top[c.i1]) +
                                  r.l1 * (c.l0 * bottom[c.i0] + c.l1 * bottom[c.i1]);
        }
      }
    });
  });
}

void upsample_bilinear2d_backward(const Tensor& grad_out, const Tensor& grad_in,
                                  bool align_corners) {
  const Planes p = planes_of(grad_in, grad_out);
  dispatch_floating(grad_out.scalar_type(), "upsample_bilinear2d_backward", [&]<typename T>() {
    const std::vector<BilinearTaps<T>> rows = bilinear_sources<T>(p.in_h, p.out_h, align_corners);
    const std::vector<BilinearTaps<T>> cols = bilinear_sources<T>(p.in_w, p.out_w, align_corners);
    const T* g = grad_out.data_ptr<T>();
    T* gi = grad_in.data_ptr<T>();
    for_each_plane(p, p.in_h * p.in_w + 4 * p.out_h * p.out_w, [&](int64_t plane) {
      const T* gp = g + plane * p.out_h * p.out_w;
      T* ip = gi + plane * p.in_h * p.in_w;
      std::fill(ip, ip + p.in_h * p.in_w, T(0));
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        const BilinearTaps<T>& r = rows[oh];
        T* top = ip + r.i0 * p.in_w;
        T* bottom = ip + r.i1 * p.in_w;
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          const BilinearTaps<T>& c = cols[ow];
          const T v = gp[oh * p.out_w + ow];
          top[c.i0] += r.l0 * c.l0 * v;
          top[c.i1] += r.l0 * c.l1 * v;
          bottom[c.i0] += r.l1 * c.l0 * v;
          bottom[c.i1] += r.l1 * c.l1 * v;
        }
      }
    });
  });
}

}  // namespace ember::cpu
