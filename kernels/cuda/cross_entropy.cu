// The CUDA cross-entropy kernels (formulas in kernels/cuda/cross_entropy.h):
// - forward: a group of lanes per row of C scores (RowPlan): the row's
//   maximum, the sum of exp(x - max) in double (exp in the scores' dtype, as
//   the CPU), and with label smoothing the weighted class sum; lane 0 writes
//   lse, the loss and the line's weight, and reports a bad target
//   (index_error_report.cuh);
// - backward: one thread per score, reading its line's lse and gradient;
// - check_class_targets: one thread per target, reporting a bad one;
// and the entry points of kernels/cuda/cross_entropy.h, which launch them.
#include <cmath>

#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cuda/cross_entropy.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/index_error_report.cuh"
#include "ember/kernels/cuda/indexing.h"
#include "ember/kernels/cuda/loops.cuh"
#include "ember/kernels/cuda/reduce_kernels.cuh"

namespace ember::cuda::detail {
namespace {

using reduce_kernels::allreduce_lanes_x;

__device__ __forceinline__ double weight_sum(const CrossEntropyLaunch& l) {
  return l.weight_total ? *l.weight_total : static_cast<double>(l.classes);
}

__device__ void report_bad_target(const IndexErrorSink& errors, const char* op, int64_t t,
                                  int64_t classes, int64_t ignore_index) {
  report_index_error(errors, kBadClassTarget, op, t, classes, /*dim*/ 0, ignore_index);
}

template <typename T>
__global__ void __launch_bounds__(kReduceThreads)
    forward_kernel(const CrossEntropyLaunch l, T* lse, T* loss, T* line_weight, int slots) {
  const int lane = threadIdx.x, lanes = blockDim.x, slot = threadIdx.y;
  const int64_t line = blockIdx.x * int64_t(slots) + slot;
  const bool active = line < l.lines;
  const int64_t classes = l.classes;
  const T* x = static_cast<const T*>(l.x) + (active ? line : 0) * classes;
  const T* w = static_cast<const T*>(l.weight);
  const double e = l.label_smoothing;
  const functors::MaxOps<T> max_ops;
  T m = max_ops.identity();
  if (active)
    for (int64_t c = lane; c < classes; c += lanes) m = max_ops.step(m, x[c]);
  m = allreduce_lanes_x(m, max_ops, lane, lanes, slot);
  const T shift = static_cast<T>(functors::softmax_shift(m));
  double sum = 0, smooth = 0;  // sum_c exp(x[c] - shift), sum_c w[c] x[c]
  if (active)
    for (int64_t c = lane; c < classes; c += lanes) {
      sum += functors::math::exp(x[c] - shift);
      if (e > 0) smooth += w ? static_cast<double>(x[c] * w[c]) : static_cast<double>(x[c]);
    }
  const functors::SumOps<double, double, double> sum_ops;
  sum = allreduce_lanes_x(sum, sum_ops, lane, lanes, slot);
  if (e > 0) smooth = allreduce_lanes_x(smooth, sum_ops, lane, lanes, slot);
  if (!active || lane != 0) return;
  const T lse_l = static_cast<T>(static_cast<double>(shift) + functors::math::log(sum));
  lse[line] = lse_l;
  const int64_t t = l.target[line];
  if (t == l.ignore_index) {
    loss[line] = 0;
    if (line_weight) line_weight[line] = 0;
    return;
  }
  if (t < 0 || t >= classes) {  // reported; never read outside the row
    report_bad_target(l.errors, l.op, t, classes, l.ignore_index);
    loss[line] = static_cast<T>(NAN);
    if (line_weight) line_weight[line] = static_cast<T>(NAN);
    return;
  }
  const double wt = w ? static_cast<double>(w[t]) : 1.0;
  double v = (1 - e) * wt * (static_cast<double>(lse_l) - static_cast<double>(x[t]));
  if (e > 0) v += e / classes * (weight_sum(l) * static_cast<double>(lse_l) - smooth);
  loss[line] = static_cast<T>(v);
  if (line_weight) line_weight[line] = static_cast<T>(wt);
}

template <typename T>
__global__ void backward_kernel(const CrossEntropyLaunch l, const T* lse, const T* grad,
                                int64_t grad_stride, const double* scale, T* dx) {
  const int64_t classes = l.classes, n = l.lines * classes;
  const T* x = static_cast<const T*>(l.x);
  const T* w = static_cast<const T*>(l.weight);
  const double e = l.label_smoothing, keep = 1 - e, e_per_class = e / classes;
  const double s = scale ? *scale : 1.0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t line = i / classes, c = i % classes, t = l.target[line];
    if (t == l.ignore_index) {
      dx[i] = 0;  // exactly 0, even where x holds inf
      continue;
    }
    if (t < 0 || t >= classes) {  // as the forward: never read w[t]
      dx[i] = static_cast<T>(NAN);
      continue;
    }
    const double g = static_cast<double>(grad[line * grad_stride]) * s;
    const double wt = w ? static_cast<double>(w[t]) : 1.0;
    const T a = static_cast<T>(g * (keep * wt + e_per_class * weight_sum(l)));
    const T b = static_cast<T>(g * e_per_class);
    T v = functors::math::exp(x[i] - lse[line]) * a - b * (w ? w[c] : T(1));
    if (c == t) v -= static_cast<T>(g * keep * wt);
    dx[i] = v;
  }
}

__global__ void check_targets_kernel(const int64_t* target, int64_t n, int64_t classes,
                                     int64_t ignore_index, const char* op,
                                     IndexErrorSink errors) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t t = target[i];
    if (t != ignore_index && (t < 0 || t >= classes))
      report_bad_target(errors, op, t, classes, ignore_index);
  }
}

}  // namespace

void launch_cross_entropy_forward(const CrossEntropyLaunch& l, void* lse, void* loss,
                                  void* line_weight) {
  if (l.lines == 0) return;
  dispatch_floating(l.dtype, "cross_entropy", [&]<typename T>() {
    const RowPlan p = make_row_plan(l.lines, l.classes);
    DeviceGuard guard(l.device);
    const size_t shared = sizeof(double) * p.lanes * p.slots;
    forward_kernel<T><<<static_cast<unsigned>(p.blocks), dim3(p.lanes, p.slots), shared, 0>>>(
        l, static_cast<T*>(lse), static_cast<T*>(loss), static_cast<T*>(line_weight), p.slots);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_cross_entropy_backward(const CrossEntropyLaunch& l, const void* lse, const void* grad,
                                   int64_t grad_stride, const double* scale, void* dx) {
  const int64_t n = l.lines * l.classes;
  if (n == 0) return;
  dispatch_floating(l.dtype, "cross_entropy", [&]<typename T>() {
    DeviceGuard guard(l.device);
    backward_kernel<T><<<loops::grid_for(n), loops::kThreads, 0, 0>>>(
        l, static_cast<const T*>(lse), static_cast<const T*>(grad), grad_stride, scale,
        static_cast<T*>(dx));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_check_class_targets(const char* op, const int64_t* target, int64_t n,
                                int64_t classes, int64_t ignore_index, int device,
                                const IndexErrorSink& errors) {
  if (n == 0) return;
  DeviceGuard guard(device);
  check_targets_kernel<<<loops::grid_for(n), loops::kThreads, 0, 0>>>(target, n, classes,
                                                                      ignore_index, op, errors);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;

namespace {

// x: (lines, C) rows; weight_total: the weight's sum in double, or undefined.
detail::CrossEntropyLaunch launch_of(const Tensor& x, const CrossEntropyArgs& args,
                                     const Tensor& weight_total) {
  EMBER_CHECK(args.inner == 1, "cross_entropy: the CUDA kernels take rows of class scores, got ",
              "inner ", args.inner);
  detail::CrossEntropyLaunch l;
  l.x = x.data_ptr();
  l.target = args.target.data_ptr<int64_t>();
  l.weight = data_or_null(args.weight);
  l.weight_total = weight_total.defined() ? weight_total.data_ptr<double>() : nullptr;
  l.lines = args.lines();
  l.classes = args.classes;
  l.ignore_index = args.ignore_index;
  l.label_smoothing = args.label_smoothing;
  l.dtype = x.scalar_type();
  l.device = device_of(x);
  l.op = "cross_entropy";
  return l;
}

// Summed on the device (no sync), in double as the CPU's kernels sum it.
Tensor weight_total(const CrossEntropyArgs& args) {
  return args.weight.defined() ? args.weight.to(kDouble).sum() : Tensor();
}

}  // namespace

bool cross_entropy_by_columns() { return false; }

void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight) {
  detail::raise_reported_index_error();
  if (args.lines() == 0) return;
  const Tensor total = weight_total(args);
  detail::CrossEntropyLaunch l = launch_of(x, args, total);
  l.errors = detail::index_error_sink(l.device);  // the forward reports bad targets
  detail::launch_cross_entropy_forward(l, lse.data_ptr(), loss.data_ptr(),
                                       data_or_null(line_weight));
}

void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx) {
  detail::raise_reported_index_error();
  if (x.numel() == 0) return;
  // No sink: the forward reported this target's bad values already.
  const Tensor total = weight_total(args);
  detail::launch_cross_entropy_backward(
      launch_of(x, args, total), lse.data_ptr(), grad.data_ptr(), grad_stride,
      scale.defined() ? scale.data_ptr<double>() : nullptr, dx.data_ptr());
}

void check_class_targets(const char* op, const Tensor& target, int64_t classes,
                         int64_t ignore_index) {
  detail::raise_reported_index_error();
  if (target.numel() == 0) return;
  const Tensor t = target.contiguous();
  detail::launch_check_class_targets(op, t.data_ptr<int64_t>(), t.numel(), classes, ignore_index,
                                     device_of(t), detail::index_error_sink(device_of(t)));
}

}  // namespace ember::cuda
