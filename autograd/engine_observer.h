#pragma once
// Note [Engine observers]: the backward trace (EMBER_AUTOGRAD_TRACE,
// set_trace) and anomaly mode (DetectAnomalyGuard) watch backward without
// being part of the algorithm. Each is a NodeObserver that the engine calls
// around every node it runs:
//   before(node, grad_outputs)  the summed gradients of the node's outputs,
//                               about to go into its backward;
//   after(node, grad_inputs)    what the backward returned, one per input,
//                               once the engine has checked them (summed to
//                               the input's shape, on its device and dtype);
//   on_error(node)              the backward or that check threw; the Error
//                               goes on after the observers have seen it.
// An observer may throw from after() (anomaly mode does): backward stops
// there, and on_error is not called. The engine asks which observers are on
// once per backward (active_observers in engine.cpp), so with none on a node
// costs an empty-list check, and the engine's loop reads as the algorithm.
#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;

class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  virtual void before(const Node& node, const tensor_list& grad_outputs) {}
  virtual void after(const Node& node, const tensor_list& grad_inputs) {}
  virtual void on_error(const Node& node) {}
};

// The observers ember has, one per file: trace_observer.cpp prints each node
// to stderr; anomaly_observer.cpp throws at the first NaN or Inf gradient.
NodeObserver& trace_observer();
NodeObserver& anomaly_observer();

}  // namespace ember::autograd
