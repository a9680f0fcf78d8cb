#pragma once
// Tools for looking at a recorded graph: counts and saved bytes, and a
// Graphviz picture.
#include <cstddef>
#include <string>

#include "ember/core/tensor.h"

namespace ember::autograd {

struct GraphStats {
  size_t nodes = 0;          // Nodes reachable from the root, AccumulateGrad included
  size_t leaves = 0;         // AccumulateGrad nodes (leaves that require grad)
  size_t saved_tensors = 0;  // tensors held for backward
  size_t saved_bytes = 0;    // their bytes: what detach() and NoGradGuard save
};

// Walks the graph behind `root` (empty stats when it has no grad_fn).
GraphStats graph_stats(const Tensor& root);

// Graphviz DOT text of the graph behind `root`.
std::string to_dot(const Tensor& root);

}  // namespace ember::autograd
