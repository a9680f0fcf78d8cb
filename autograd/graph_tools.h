#pragma once
// Tools for looking at a recorded graph: counts and saved bytes, the nodes in
// the order they were recorded, and a Graphviz picture (docs/autograd.md shows
// one and explains how to read it).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;

struct GraphStats {
  size_t nodes = 0;          // Nodes reachable from the root, AccumulateGrad included
  size_t leaves = 0;         // AccumulateGrad nodes (leaves that require grad)
  size_t saved_tensors = 0;  // tensors held for backward
  size_t saved_bytes = 0;    // their bytes: what detach() and NoGradGuard save
};

// Walks the graph behind `root` (empty stats when it has no grad_fn and does
// not require grad). A tensor saved by two nodes counts twice. Backward
// without retain_graph frees the saved tensors: saved_bytes drops to 0.
GraphStats graph_stats(const Tensor& root);

// The nodes behind `root` in the order the forward recorded them (the tape);
// backward runs them roughly in reverse. Leaves appear as AccumulateGrad.
std::vector<std::shared_ptr<Node>> graph_nodes(const Tensor& root);

// A tensor to draw, with the name the picture gives it.
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// Graphviz DOT text (`dot -Tsvg`) of the graphs behind `tensors`, arrows in
// the forward direction (inputs above, outputs below):
//   - a box per backward node: its name, creation number, output shape and
//     dtype, and the tensors it saved (or "freed" after backward);
//   - a blue box per leaf that requires grad (its AccumulateGrad node);
//   - an ellipse per named non-leaf tensor, fed by the node that made it;
//   - a cut: a dashed grey shape where the graph stops. An input that needs
//     no gradient (a constant, or a detached tensor) is a dashed stub on the
//     edge into the node that used it; a named tensor with no grad_fn that
//     does not require grad (detach(), NoGradGuard) is a dashed ellipse with
//     nothing above it. A leaf that does not require grad is never a node.
// Names also label leaves: {"w", w} names w's AccumulateGrad box.
std::string to_dot(const std::vector<NamedTensor>& tensors);
// The same with `root` named "output".
std::string to_dot(const Tensor& root);

}  // namespace ember::autograd
