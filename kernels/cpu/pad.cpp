#include "ember/kernels/cpu/pad.h"

#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

void pad_axis(const Tensor& x, const functors::PadAxis& a, int64_t inner, double value,
              const Tensor& out) {
  const int64_t outer = out.numel() / (a.out * inner);  // out is not empty
  dispatch_floating(x.scalar_type(), "pad", [&]<typename T>() {
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const T fill = static_cast<T>(value);
    parallel_for(0, outer * a.out, std::max<int64_t>(1, kGrainSize / inner),
                 [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t slab = row / a.out, src = a.source(row % a.out);
        T* dst = op + row * inner;
        if (src < 0) {
          std::fill(dst, dst + inner, fill);
        } else {
          const T* from = xp + (slab * a.in + src) * inner;
          std::copy(from, from + inner, dst);
        }
      }
    });
  });
}

void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis& a, int64_t inner,
                       const Tensor& grad_in) {
  const int64_t outer = grad_in.numel() / (a.in * inner);  // grad_in is not empty
  dispatch_floating(grad_out.scalar_type(), "pad_backward", [&]<typename T>() {
    const T* gp = grad_out.data_ptr<T>();
    T* ip = grad_in.data_ptr<T>();
    parallel_for(0, outer * a.in, std::max<int64_t>(1, kGrainSize / inner),
                 [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t o_base = row / a.in * a.out;
        const functors::PadAxis::Runs runs = a.outputs_of(row % a.in);
        T* dst = ip + row * inner;
        std::fill(dst, dst + inner, T(0));
        for (int r = 0; r < runs.count; ++r)
          for (int64_t o = runs.begin[r]; o < runs.end[r]; ++o) {
            const T* from = gp + (o_base + o) * inner;
            for (int64_t j = 0; j < inner; ++j) dst[j] += from[j];
          }
      }
    });
  });
}

}  // namespace ember::cpu
