// The host half of the CUDA cross-entropy. Compiled in every build; without
// CUDA each raises.
#include "ember/kernels/cuda/cross_entropy.h"

#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/indexing.h"

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;
using detail::no_cuda;

namespace {

#ifdef EMBER_WITH_CUDA
detail::CrossEntropyLaunch launch_of(const Tensor& x, const CrossEntropyArgs& args) {
  detail::CrossEntropyLaunch l;
  l.x = x.data_ptr();
  l.target = args.target.data_ptr<int64_t>();
  l.weight = data_or_null(args.weight);
  l.weight_total = args.weight_total.defined() ? args.weight_total.data_ptr<double>() : nullptr;
  l.lines = x.size(0);
  l.classes = x.size(1);
  l.ignore_index = args.ignore_index;
  l.label_smoothing = args.label_smoothing;
  l.dtype = x.scalar_type();
  l.device = device_of(x);
  l.op = "cross_entropy";
  return l;
}
#endif

}  // namespace

void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight) {
#ifdef EMBER_WITH_CUDA
  detail::raise_reported_index_error();
  if (x.size(0) == 0) return;
  detail::CrossEntropyLaunch l = launch_of(x, args);
  l.errors = detail::index_error_sink(l.device);  // the forward reports bad targets
  detail::launch_cross_entropy_forward(l, lse.data_ptr(), loss.data_ptr(),
                                       line_weight.data_ptr());
#else
  (void)args, (void)lse, (void)loss, (void)line_weight;
  no_cuda("cross_entropy", x);
#endif
}

void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx) {
#ifdef EMBER_WITH_CUDA
  detail::raise_reported_index_error();
  if (x.numel() == 0) return;
  // No sink: the forward reported this target's bad values already.
  detail::launch_cross_entropy_backward(
      launch_of(x, args), lse.data_ptr(), grad.data_ptr(), grad_stride,
      scale.defined() ? scale.data_ptr<double>() : nullptr, dx.data_ptr());
#else
  (void)args, (void)lse, (void)grad, (void)grad_stride, (void)scale, (void)dx;
  no_cuda("cross_entropy", x);
#endif
}

void check_class_targets(const char* op, const Tensor& target, int64_t classes,
                         int64_t ignore_index) {
#ifdef EMBER_WITH_CUDA
  detail::raise_reported_index_error();
  if (target.numel() == 0) return;
  const Tensor t = target.contiguous();
  detail::launch_check_class_targets(op, t.data_ptr<int64_t>(), t.numel(), classes, ignore_index,
                                     device_of(t), detail::index_error_sink(device_of(t)));
#else
  (void)classes, (void)ignore_index;
  no_cuda(op, target);
#endif
}

}  // namespace ember::cuda
