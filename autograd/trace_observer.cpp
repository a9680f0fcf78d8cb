// The backward trace (Note [Engine observers]): one line per node, as the
// engine runs it, to stderr:
//   [autograd] #6 MulBackward  grad_outputs: [4, 2]  -> [4, 2] [4, 2]
// creation number, name, shapes of the gradients it received, and of those
// it returned ("none" where an input needs no gradient, ".grad" for a leaf's
// AccumulateGrad, "error" when its backward threw).
#include <iostream>

#include "ember/autograd/engine_observer.h"
#include "ember/autograd/node.h"

namespace ember::autograd {
namespace {

void print_shapes(const tensor_list& grads) {
  for (const Tensor& g : grads) std::cerr << ' ' << (g.defined() ? detail::str_cat(g.sizes()) : "none");
}

class TraceObserver final : public NodeObserver {
 public:
  void before(const Node& node, const tensor_list& grad_outputs) override {
    std::cerr << "[autograd] #" << node.sequence_nr() << ' ' << node.name() << "  grad_outputs:";
    print_shapes(grad_outputs);
  }
  void after(const Node& node, const tensor_list& grad_inputs) override {
    std::cerr << "  ->";
    print_shapes(grad_inputs);
    if (node.is_accumulate_grad()) std::cerr << " .grad";
    std::cerr << '\n';
  }
  // Ends the line before the Error propagates.
  void on_error(const Node&) override { std::cerr << "  -> error\n"; }
};

}  // namespace

NodeObserver& trace_observer() {
  static TraceObserver observer;
  return observer;
}

}  // namespace ember::autograd
