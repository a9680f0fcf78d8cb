// Anomaly mode (Note [Engine observers]; DetectAnomalyGuard in anomaly_mode.h):
// after each node, every floating-point gradient it returned must be finite,
// or backward stops with an Error naming the node and its creation number.
// It reads every gradient and copies one bool per gradient to the host (a
// sync on CUDA), which is why it is off by default.
#include "ember/autograd/engine_observer.h"
#include "ember/autograd/node.h"
#include "ember/core/ops/unary.h"  // isfinite: not a Tensor method

namespace ember::autograd {
namespace {

class AnomalyObserver final : public NodeObserver {
 public:
  void after(const Node& node, const tensor_list& grad_inputs) override {
    for (size_t i = 0; i < grad_inputs.size(); ++i) {
      const Tensor& g = grad_inputs[i];
      if (!g.defined() || !g.is_floating_point()) continue;
      EMBER_CHECK(isfinite(g).all().item<bool>(), "autograd anomaly: ", node.name(),
                  " (recorded by forward op #", node.sequence_nr(),
                  ") returned NaN or Inf in its gradient for input ", i, " (shape ", g.sizes(), ")");
    }
  }
};

}  // namespace

NodeObserver& anomaly_observer() {
  static AnomalyObserver observer;
  return observer;
}

}  // namespace ember::autograd
