// What the cuDNN conv answers in a build without the CUDA backend; the
// passes themselves are in cudnn_conv.cu, built only with it.
#include "ember/kernels/cuda/cudnn_conv.h"

#include "ember/core/error.h"
#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA

void cudnn_conv_forward(const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                        const ConvParams&) {
  detail::no_cuda("conv2d", x);
}
void cudnn_conv_backward_data(const Tensor& gy, const Tensor&, const Tensor&, const Tensor&,
                              const ConvParams&) {
  detail::no_cuda("conv2d", gy);
}
void cudnn_conv_backward_weight(const Tensor& x, const Tensor&, const Tensor&,
                                const ConvParams&) {
  detail::no_cuda("conv2d", x);
}
std::string cudnn_current_machine_tag() { return "no-cuda"; }
void cudnn_set_machine_tag() {}
// Without cuDNN no algorithm can run: nothing loads.
bool cudnn_result_valid(size_t, const bench::AlgoResult&) { return false; }

#endif

}  // namespace ember::cuda
