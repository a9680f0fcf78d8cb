// The host half of the CUDA cross-entropy. Compiled in every build; without
// CUDA each raises.
#include "ember/kernels/cuda/cross_entropy.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::cuda {
namespace {

#ifdef EMBER_WITH_CUDA
const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

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
  l.device = std::max(x.device().index(), 0);
  return l;
}
#else
[[noreturn]] void no_cuda(const Tensor& x) {
  EMBER_ERROR("cross_entropy: ", x.toString(), " needs the CUDA backend");
}
#endif

}  // namespace

void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight) {
#ifdef EMBER_WITH_CUDA
  if (x.size(0) == 0) return;
  detail::launch_cross_entropy_forward(launch_of(x, args), lse.data_ptr(), loss.data_ptr(),
                                       line_weight.data_ptr());
#else
  (void)args, (void)lse, (void)loss, (void)line_weight;
  no_cuda(x);
#endif
}

void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx) {
#ifdef EMBER_WITH_CUDA
  if (x.numel() == 0) return;
  detail::launch_cross_entropy_backward(
      launch_of(x, args), lse.data_ptr(), grad.data_ptr(), grad_stride,
      scale.defined() ? scale.data_ptr<double>() : nullptr, dx.data_ptr());
#else
  (void)args, (void)lse, (void)grad, (void)grad_stride, (void)scale, (void)dx;
  no_cuda(x);
#endif
}

}  // namespace ember::cuda
