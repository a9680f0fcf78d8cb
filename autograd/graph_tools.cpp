#include "ember/autograd/graph_tools.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/node.h"

namespace ember::autograd {
namespace {

bool is_leaf_node(const Node& n) { return n.is_accumulate_grad(); }

// The node a backward from `t` starts at: its grad_fn, or the accumulator of
// a leaf that requires grad; null when nothing was recorded for `t`.
std::shared_ptr<Node> start_node(const Tensor& t) {
  if (!t.defined()) return nullptr;
  if (auto fn = t.grad_fn()) return fn;
  if (t.requires_grad()) return grad_accumulator(t);
  return nullptr;
}

// Every node reachable from `starts`, once each, in creation order.
std::vector<std::shared_ptr<Node>> reachable(std::vector<std::shared_ptr<Node>> stack) {
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> found;
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    if (!n || !seen.insert(n.get()).second) continue;
    for (const Edge& e : n->next_edges())
      if (e.valid()) stack.push_back(e.fn);
    found.push_back(std::move(n));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a->sequence_nr() < b->sequence_nr(); });
  return found;
}

GraphStats stats_of(const std::vector<std::shared_ptr<Node>>& nodes) {
  GraphStats s;
  for (const auto& n : nodes) {
    ++s.nodes;
    if (is_leaf_node(*n)) ++s.leaves;
    s.saved_tensors += n->num_saved();
    s.saved_bytes += n->saved_bytes();
  }
  return s;
}

// ---- DOT text ----

// A string as a DOT quoted string; "\n" in `s` becomes a line break.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + '"';
}

std::string meta_text(const TensorMeta& m) { return detail::str_cat(m.sizes, ' ', m.dtype); }
std::string tensor_text(const Tensor& t) {
  return detail::str_cat(t.sizes(), ' ', t.scalar_type());
}

std::string bytes_text(size_t bytes) {
  if (bytes < 10 * 1024) return detail::str_cat(bytes, " B");
  if (bytes < 10 * 1024 * 1024) return detail::str_cat(bytes / 1024, " KiB");
  return detail::str_cat(bytes / (1024 * 1024), " MiB");
}

std::string leaf_label(const AccumulateGrad& acc, const std::string& name) {
  const Tensor& v = acc.variable();
  return detail::str_cat(name.empty() ? "leaf" : name, '\n', tensor_text(v),
                         "\nrequires_grad=true\n.grad ", v.grad().defined() ? "set" : "undefined");
}

std::string function_label(const Node& n) {
  std::ostringstream os;
  os << n.name() << " #" << n.sequence_nr();
  const auto& outs = n.output_meta();
  for (size_t i = 0; i < outs.size(); ++i)
    os << "\nout" << (outs.size() > 1 ? detail::str_cat(' ', i) : "") << ": " << meta_text(outs[i]);
  if (n.saved_released())
    os << "\nsaved: freed by backward";
  else if (n.num_saved() == 0)
    os << "\nsaved: nothing";
  else
    os << "\nsaved: " << n.num_saved() << (n.num_saved() == 1 ? " tensor, " : " tensors, ")
       << bytes_text(n.saved_bytes());
  return os.str();
}

// Writes the DOT text; node ids are n<i> in creation order, so the text of a
// graph is the same on every run.
class DotWriter {
 public:
  explicit DotWriter(const std::vector<std::shared_ptr<Node>>& nodes) {
    for (const auto& n : nodes) ids_[n.get()] = detail::str_cat('n', ids_.size());
  }

  void header(const GraphStats& stats) {
    os_ << "digraph autograd {\n"
        << "  graph [fontname=\"Helvetica\", fontsize=11, labelloc=t, label="
        << quoted(detail::str_cat(stats.nodes, " nodes, ", stats.leaves, " leaves, ",
                                  stats.saved_tensors, " saved tensors (",
                                  bytes_text(stats.saved_bytes), ")"))
        << "];\n"
        << "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", "
           "fillcolor=white];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9, color=gray30];\n";
  }

  void leaf(const AccumulateGrad& acc, const std::string& name) {
    os_ << "  " << ids_.at(&acc) << " [label=" << quoted(leaf_label(acc, name))
        << ", fillcolor=lightblue];\n";
  }

  // The node's box, and an arrow from each input (a dashed stub when the
  // input needs no gradient: a cut).
  void function(const Node& n) {
    const std::string& id = ids_.at(&n);
    os_ << "  " << id << " [label=" << quoted(function_label(n)) << "];\n";
    const auto& edges = n.next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const std::string input = edges.size() > 1 ? detail::str_cat(" in ", i) : "";
      if (!edges[i].valid()) {
        const std::string cut = detail::str_cat('c', cuts_++);
        os_ << "  " << cut << " [label="
            << quoted(detail::str_cat("no grad\n", meta_text(n.input_meta()[i])))
            << ", shape=ellipse, style=dashed, color=gray55, fontcolor=gray45];\n"
            << "  " << cut << " -> " << id << " [style=dashed, color=gray55, label="
            << quoted(input) << "];\n";
        continue;
      }
      const Node& from = *edges[i].fn;
      os_ << "  " << ids_.at(&from) << " -> " << id << " [label="
          << quoted(input + output_text(from, edges[i].input_nr)) << "];\n";
    }
  }

  // A named non-leaf below the node that made it; with no node, a cut.
  void named_tensor(const NamedTensor& nt, const Node* made_by) {
    const std::string id = detail::str_cat('t', named_++);
    const std::string text = detail::str_cat(nt.name, '\n', tensor_text(nt.tensor));
    if (made_by == nullptr) {
      os_ << "  " << id << " [label="
          << quoted(text + "\nno grad_fn, requires_grad=false\n(detached or no-grad: cut)")
          << ", shape=ellipse, style=\"dashed,filled\", fillcolor=gray95, color=gray45];\n";
      return;
    }
    os_ << "  " << id << " [label=" << quoted(text)
        << ", shape=ellipse, fillcolor=darkseagreen1];\n"
        << "  " << ids_.at(made_by) << " -> " << id << " [label="
        << quoted(output_text(*made_by, nt.tensor.output_nr())) << "];\n";
  }

  std::string finish() {
    os_ << "}\n";
    return os_.str();
  }

 private:
  // Which output of `n` an arrow carries, when it has several.
  static std::string output_text(const Node& n, uint32_t output_nr) {
    return n.num_outputs() > 1 ? detail::str_cat(" out ", output_nr) : "";
  }

  std::unordered_map<const Node*, std::string> ids_;
  std::ostringstream os_;
  size_t cuts_ = 0;
  size_t named_ = 0;
};

}  // namespace

GraphStats graph_stats(const Tensor& root) { return stats_of(reachable({start_node(root)})); }

std::vector<std::shared_ptr<Node>> graph_nodes(const Tensor& root) {
  return reachable({start_node(root)});
}

std::string to_dot(const std::vector<NamedTensor>& tensors) {
  std::vector<std::shared_ptr<Node>> starts;
  std::unordered_map<const Node*, std::string> leaf_names;
  for (const NamedTensor& nt : tensors) {
    std::shared_ptr<Node> s = start_node(nt.tensor);
    if (s && nt.tensor.is_leaf()) leaf_names[s.get()] = nt.name;
    starts.push_back(std::move(s));
  }
  const std::vector<std::shared_ptr<Node>> nodes = reachable(starts);
  DotWriter dot(nodes);
  dot.header(stats_of(nodes));
  for (const auto& n : nodes) {
    if (n->is_accumulate_grad()) {
      auto it = leaf_names.find(n.get());
      dot.leaf(static_cast<const AccumulateGrad&>(*n), it == leaf_names.end() ? "" : it->second);
    } else {
      dot.function(*n);
    }
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    // Leaves that require grad were named on their AccumulateGrad box above.
    if (!tensors[k].tensor.defined() || (starts[k] && tensors[k].tensor.is_leaf())) continue;
    dot.named_tensor(tensors[k], starts[k].get());
  }
  return dot.finish();
}

std::string to_dot(const Tensor& root) {
  return to_dot(std::vector<NamedTensor>{{"output", root}});
}

}  // namespace ember::autograd
