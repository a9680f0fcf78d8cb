// Anomaly mode (Note [Engine observers]; DetectAnomalyGuard in anomaly_mode.h):
// after each node, every floating-point gradient it returned must be finite,
// or backward stops with an Error naming the node and its creation number.
// It makes a few passes over every gradient and copies one bool per gradient
// to the host (a sync on CUDA), which is why it is off by default.
#include "ember/autograd/engine_observer.h"
#include "ember/autograd/node.h"

namespace ember::autograd {
namespace {

class AnomalyObserver final : public NodeObserver {
 public:
  void after(const Node& node, const tensor_list& grad_inputs) override {
    for (size_t i = 0; i < grad_inputs.size(); ++i) {
      const Tensor& g = grad_inputs[i];
      if (!g.defined() || !g.is_floating_point()) continue;
      // Inf, or NaN (the one value not equal to itself): Tensor methods, as
      // autograd/ includes core/ only (isfinite is not one).
      const bool finite = !(g.isinf() | (g != g)).any().item<bool>();
      EMBER_CHECK(finite, "autograd anomaly: ", node.name(),
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
