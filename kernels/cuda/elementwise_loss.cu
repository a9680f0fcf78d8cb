// The per-element losses (log_sigmoid, binary cross-entropy with and without
// logits): the CPU's functors over loops.cuh, for float32 and float64.
#include "ember/kernels/common/loss_functors.h"
#include "ember/kernels/cuda/elementwise_launch.h"
#include "ember/kernels/cuda/loops.cuh"

namespace ember::cuda::detail {

void launch_loss(const char* name, LossOp op, const ElementwiseLaunch& l) {
  using namespace functors;
  dispatch_floating(l.out_dtype, name, [&]<typename T>() {
    switch (op) {
      case LossOp::kLogSigmoid:
        return loops::launch<T, T>(l, LogSigmoid<T>{});
      case LossOp::kBinaryCrossEntropy:
        return loops::launch<T, T, T>(l, BinaryCrossEntropy<T>{});
      case LossOp::kBinaryCrossEntropyWithLogits:
        return loops::launch<T, T, T, T>(l, BinaryCrossEntropyWithLogits<T>{});
    }
    EMBER_INTERNAL_ASSERT(false, name, ": unknown loss op ", static_cast<int>(op));
  });
}

}  // namespace ember::cuda::detail
