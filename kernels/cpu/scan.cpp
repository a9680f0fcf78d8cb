// The CPU scans: cumsum and cumprod (for int64, float32, float64),
// logcumsumexp (float32, float64), cummax and cummin (every dtype).
#include "ember/kernels/cpu/scan.h"

#include "ember/kernels/common/scan_functors.h"

namespace ember::cpu {

namespace {

// Runs line(offset) for each of the outer * inner lines of (outer, n, inner).
template <typename Line>
void for_each_line(int64_t outer, int64_t n, int64_t inner, const Line& line) {
  for (int64_t i = 0; i < outer * inner; ++i) line(i / inner * n * inner + i % inner);
}

}  // namespace

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner) {
  dispatch_numeric(in.scalar_type(), name, [&]<typename T>() {
    const T* x = in.data_ptr<T>();
    T* o = out.data_ptr<T>();
    // An empty scan dim leaves nothing to scan, and maybe no storage to offset into.
    const int64_t lines = n == 0 ? 0 : outer * inner;
    for (int64_t line = 0; line < lines; ++line) {
      const int64_t offset = line / inner * n * inner + line % inner;
      if (is_prod)
        functors::scan_line<T, true>(x + offset, o + offset, n, inner);
      else
        functors::scan_line<T, false>(x + offset, o + offset, n, inner);
    }
  });
}

void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner) {
  dispatch_floating(in.scalar_type(), "logcumsumexp", [&]<typename T>() {
    const T* x = in.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for_each_line(outer, n, inner,
                  [&](int64_t k) { functors::logcumsumexp_line<T>(x + k, o + k, n, inner); });
  });
}

void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner) {
  dispatch_all(in.scalar_type(), name, [&]<typename T>() {
    const T* x = in.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* at = indices.data_ptr<int64_t>();
    for_each_line(outer, n, inner, [&](int64_t o) {
      if (is_max)
        functors::cum_extreme_line<T, true>(x + o, v + o, at + o, n, inner);
      else
        functors::cum_extreme_line<T, false>(x + o, v + o, at + o, n, inner);
    });
  });
}

}  // namespace ember::cpu
