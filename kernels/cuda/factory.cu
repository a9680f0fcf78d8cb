// The CUDA range kernel: out[i] = f(i) with the range functors the CPU uses;
// below it the family's entry points (kernels/cuda/factory.h): check, then
// launch.
#include <algorithm>

#include "ember/kernels/common/range_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/factory.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

template <typename T, typename F>
__global__ void range_kernel(T* out, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = f(i);
}

template <typename T, typename F>
void launch(const RangeFill& r, const F& f) {
  const auto grid =
      static_cast<unsigned>(std::min<int64_t>((r.n + kThreads - 1) / kThreads, kMaxBlocks));
  range_kernel<T, F><<<grid, kThreads, 0, 0>>>(static_cast<T*>(r.out), r.n, f);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_range_fill(const RangeFill& r) {
  DeviceGuard guard(r.device);
  dispatch_numeric(r.dtype, "arange", [&]<typename T>() {
    switch (r.kind) {
      case RangeKind::kArangeInt:
        return launch<T>(r, functors::ArangeInt<T>{r.int_start, r.int_step});
      case RangeKind::kArangeFloat:
        return launch<T>(r, functors::ArangeFloat<T>{r.start, r.step_or_end});
      case RangeKind::kLinspace:
        return launch<T>(r, functors::Linspace<T>{r.start, r.step_or_end, r.n});
    }
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {
namespace {

void fill(const char* op, const Tensor& t, RangeFill f) {
  EMBER_INTERNAL_ASSERT(t.is_cuda() && t.is_contiguous() && t.dim() == 1, op, ": ",
                        t.toString());
  dispatch_numeric(t.scalar_type(), op, []<typename>() {});
  f.dtype = t.scalar_type();
  f.out = t.data_ptr();
  f.n = t.numel();
  f.device = detail::device_of(t);
  if (f.n > 0) detail::launch_range_fill(f);
}

}  // namespace

void fill_arange(const Tensor& t, const Scalar& start, const Scalar& step, bool integral) {
  RangeFill f;
  f.kind = integral ? RangeKind::kArangeInt : RangeKind::kArangeFloat;
  if (integral) {
    f.int_start = start.toLong();
    f.int_step = step.toLong();
  } else {
    f.start = start.toDouble();
    f.step_or_end = step.toDouble();
  }
  fill("arange", t, f);
}

void fill_linspace(const Tensor& t, double start, double end) {
  RangeFill f;
  f.kind = RangeKind::kLinspace;
  f.start = start;
  f.step_or_end = end;
  fill("linspace", t, f);
}

}  // namespace ember::cuda
