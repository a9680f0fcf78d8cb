// The CPU range factories (kernels/cpu/factory.h): one parallel loop over
// t[i] = f(i) with the range functors the CUDA kernel uses
// (kernels/common/range_functors.h).
#include "ember/kernels/cpu/factory.h"

#include "ember/kernels/common/range_functors.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {
namespace {

// t[i] = f(i) over the contiguous 1-d CPU tensor t.
template <typename T, typename F>
void fill_range(const Tensor& t, const F& f) {
  T* p = t.data_ptr<T>();
  parallel_for(0, t.numel(), cpu::kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = f(i);
  });
}

}  // namespace

void arange_kernel(const Tensor& t, const Scalar& start, const Scalar& step, bool integral) {
  const double s = step.toDouble(), a = start.toDouble();
  dispatch_numeric(t.scalar_type(), "arange", [&]<typename T>() {
    if (integral)
      fill_range<T>(t, functors::ArangeInt<T>{start.toLong(), step.toLong()});
    else
      fill_range<T>(t, functors::ArangeFloat<T>{a, s});
  });
}

void linspace_kernel(const Tensor& t, double start, double end) {
  const double a = start, b = end;
  const int64_t steps = t.numel();
  dispatch_numeric(t.scalar_type(), "linspace", [&]<typename T>() {
    fill_range<T>(t, functors::Linspace<T>{a, b, steps});
  });
}

}  // namespace ember::cpu
