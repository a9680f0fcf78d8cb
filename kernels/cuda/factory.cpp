// The host half of the CUDA range factories (kernels/cuda/factory.h).
// Compiled in every build; without CUDA each raises.
#include "ember/kernels/cuda/factory.h"

#include "ember/core/error.h"
#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {
namespace {

void fill(const char* op, const Tensor& t, RangeFill f) {
  EMBER_INTERNAL_ASSERT(t.is_cuda() && t.is_contiguous() && t.dim() == 1, op, ": ",
                        t.toString());
  dispatch_numeric(t.scalar_type(), op, []<typename>() {});
#ifdef EMBER_WITH_CUDA
  f.dtype = t.scalar_type();
  f.out = t.data_ptr();
  f.n = t.numel();
  f.device = detail::device_of(t);
  if (f.n > 0) detail::launch_range_fill(f);
#else
  (void)f;
  detail::no_cuda(op, t);
#endif
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
