// The teaching tools: graph_stats, graph_nodes, to_dot and the backward trace.
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>
#include <string>

#include <ember/autograd/function.h>
#include <ember/autograd/node.h>
#include <ember/ember.h>

using namespace ember;
using Catch::Contains;

namespace {

Tensor leaf(IntArrayRef shape) { return ones(shape, kDouble).requires_grad_(); }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Redirects std::cerr into a string for its lifetime.
class CaptureCerr {
 public:
  CaptureCerr() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CaptureCerr() { std::cerr.rdbuf(old_); }
  std::string text() const { return buffer_.str(); }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

// Turns the backward trace on for its lifetime.
struct TraceOn {
  TraceOn() { autograd::set_trace(true); }
  ~TraceOn() { autograd::set_trace(false); }
};

}  // namespace

// ---- graph_stats and graph_nodes ----

TEST_CASE("graph_stats counts nodes, leaves, saved tensors and their bytes", "[autograd]") {
  Tensor x = leaf({2, 3}), w = leaf({2, 3});
  Tensor y = x * w + x;  // MulBackward (saves x and w), AddBackward, 2 AccumulateGrad
  const autograd::GraphStats s = autograd::graph_stats(y);
  REQUIRE(s.nodes == 4);
  REQUIRE(s.leaves == 2);
  REQUIRE(s.saved_tensors == 2);
  REQUIRE(s.saved_bytes == 2 * 6 * sizeof(double));
}

TEST_CASE("graph_stats skips the saves an op leaves empty for inputs that need no gradient",
          "[autograd]") {
  Tensor x = leaf({4});
  Tensor c = ones({4}, kDouble);
  const autograd::GraphStats s = autograd::graph_stats(x * c);  // only c is needed, for x's grad
  REQUIRE(s.nodes == 2);
  REQUIRE(s.leaves == 1);
  REQUIRE(s.saved_tensors == 1);
  REQUIRE(s.saved_bytes == 4 * sizeof(double));
}

TEST_CASE("graph_stats of a leaf that requires grad is the leaf alone", "[autograd]") {
  const autograd::GraphStats s = autograd::graph_stats(leaf({3}));
  REQUIRE(s.nodes == 1);
  REQUIRE(s.leaves == 1);
  REQUIRE(s.saved_bytes == 0);
}

TEST_CASE("graph_stats is empty for a constant, a detached tensor and an undefined tensor",
          "[autograd]") {
  Tensor x = leaf({3});
  for (const Tensor& t : {ones({3}), (x * x).detach(), Tensor()}) {
    const autograd::GraphStats s = autograd::graph_stats(t);
    REQUIRE(s.nodes == 0);
    REQUIRE(s.leaves == 0);
    REQUIRE(s.saved_tensors == 0);
    REQUIRE(s.saved_bytes == 0);
  }
}

TEST_CASE("a node reached along two paths is counted once", "[autograd]") {
  Tensor x = leaf({3});
  Tensor h = x * 2.0;
  Tensor y = h * h + h;  // h's node feeds MulBackward twice and AddBackward
  const autograd::GraphStats s = autograd::graph_stats(y);
  REQUIRE(s.nodes == 4);  // AccumulateGrad, MulBackward (h), MulBackward (h*h), AddBackward
  REQUIRE(s.leaves == 1);
}

TEST_CASE("graph_nodes lists the tape in recording order", "[autograd]") {
  Tensor x = leaf({2}), w = leaf({2});
  Tensor y = (x * w - w) / x;
  std::vector<std::string> names;
  for (const auto& n : autograd::graph_nodes(y))
    if (n->name() != "AccumulateGrad") names.emplace_back(n->name());
  REQUIRE(names == std::vector<std::string>{"MulBackward", "SubBackward", "DivBackward"});
  REQUIRE(autograd::graph_nodes(y).size() == 5);
  REQUIRE(autograd::graph_nodes(y.detach()).empty());
}

TEST_CASE("a leaf's node says it is an AccumulateGrad; an op's node says it is not",
          "[autograd]") {
  Tensor x = leaf({2});
  Tensor y = x * 2.0;
  REQUIRE(autograd::gradient_edge(x).fn->is_accumulate_grad());
  REQUIRE_FALSE(y.grad_fn()->is_accumulate_grad());
  for (const auto& n : autograd::graph_nodes(y))
    REQUIRE(n->is_accumulate_grad() == (n->name() == "AccumulateGrad"));
}

// ---- to_dot ----

TEST_CASE("to_dot draws each node with its name, output shape, dtype and saved bytes",
          "[autograd]") {
  Tensor x = leaf({2, 3}), w = leaf({2, 3});
  Tensor y = x * w + x;
  const std::string dot = autograd::to_dot(y);
  INFO(dot);
  REQUIRE(dot.rfind("digraph autograd {", 0) == 0);
  REQUIRE(dot.back() == '\n');
  REQUIRE(dot.find("}\n") == dot.size() - 2);
  REQUIRE_THAT(dot, Contains("MulBackward #") && Contains("AddBackward #"));
  REQUIRE_THAT(dot, Contains("out: [2, 3] float64"));
  REQUIRE_THAT(dot, Contains("saved: 2 tensors, 96 B"));
  REQUIRE_THAT(dot, Contains("saved: nothing"));  // AddBackward
  REQUIRE(count(dot, "fillcolor=lightblue") == 2);  // the two leaves
  REQUIRE(count(dot, "requires_grad=true") == 2);
  REQUIRE_THAT(dot, Contains("4 nodes, 2 leaves, 2 saved tensors (96 B)"));
  REQUIRE(count(dot, " -> ") == 5);  // x, w -> mul; mul, x -> add; add -> output
  REQUIRE_THAT(dot, Contains("output\\n[2, 3] float64"));
}

TEST_CASE("to_dot draws a detached root as a cut with nothing behind it", "[autograd]") {
  Tensor x = leaf({3});
  const std::string dot = autograd::to_dot((x * x).detach());
  INFO(dot);
  REQUIRE_THAT(dot, Contains("no grad_fn, requires_grad=false") && Contains("cut") &&
                        Contains("dashed"));
  REQUIRE_THAT(dot, !Contains("Backward") && !Contains(" -> "));
  REQUIRE_THAT(dot, Contains("0 nodes, 0 leaves"));
}

TEST_CASE("to_dot draws an input that needs no gradient as a dashed stub into its node",
          "[autograd]") {
  Tensor x = leaf({3});
  Tensor h = x * 2.0;
  Tensor y = h.detach() * x;  // the detached h is cut: it feeds MulBackward as a constant
  const std::string dot = autograd::to_dot(y);
  INFO(dot);
  REQUIRE(count(dot, "no grad\\n[3] float64") == 1);
  REQUIRE(count(dot, "style=dashed") == 2);  // the stub and its edge
  REQUIRE(count(dot, "MulBackward") == 1);   // h's own MulBackward is not drawn
  REQUIRE_THAT(dot, Contains("in 0") && Contains("in 1"));
}

TEST_CASE("to_dot names leaves and intermediate tensors, and marks freed saved tensors",
          "[autograd]") {
  Tensor x = leaf({2}), w = leaf({2});
  Tensor h = x * w;
  Tensor loss = h * h;
  loss.backward(ones_like(loss));
  const std::string dot = autograd::to_dot({{"loss", loss}, {"h", h}, {"x", x}, {"w", w}});
  INFO(dot);
  REQUIRE_THAT(dot, Contains("\"x\\n[2] float64\\nrequires_grad=true\\n.grad set\""));
  REQUIRE_THAT(dot, Contains("\"w\\n[2] float64"));
  REQUIRE_THAT(dot, Contains("\"loss\\n[2] float64\"") && Contains("\"h\\n[2] float64\""));
  REQUIRE(count(dot, "saved: freed by backward") == 2);
  REQUIRE_THAT(dot, Contains("4 nodes, 2 leaves, 0 saved tensors (0 B)"));
  REQUIRE(count(dot, "fillcolor=darkseagreen1") == 2);  // loss and h
}

TEST_CASE("to_dot escapes quotes in names", "[autograd]") {
  Tensor x = leaf({1});
  const std::string dot = autograd::to_dot({{"say \"hi\"", x * x}});
  REQUIRE_THAT(dot, Contains("say \\\"hi\\\""));
}

TEST_CASE("to_dot labels which output of a multi-output node feeds an edge", "[autograd]") {
  Tensor x = leaf({2});
  Tensor a = x.detach().clone(), b = x.detach().clone();
  auto node = autograd::make_node("TwoOutputsBackward", {x},
                                  [](autograd::Node&, const tensor_list& g) { return g; });
  autograd::set_history(a, node);
  autograd::set_history(b, node);
  Tensor y = b * 2.0;
  const std::string dot = autograd::to_dot({{"a", a}, {"y", y}});
  INFO(dot);
  REQUIRE_THAT(dot, Contains("out 0: [2] float64") && Contains("out 1: [2] float64"));
  REQUIRE(count(dot, "label=\" in 0 out 1\"") == 1);  // b is MulBackward's input 0
  REQUIRE(count(dot, "label=\" out 0\"") == 1);       // a is drawn below the node
}

// ---- trace ----

TEST_CASE("the trace prints each node as backward runs it, consumers first", "[autograd]") {
  Tensor x = leaf({3}), w = leaf({3});
  Tensor y = x * w + x;
  std::string text;
  {
    TraceOn trace;
    CaptureCerr capture;
    y.backward(ones_like(y));
    text = capture.text();
  }
  INFO(text);
  REQUIRE(count(text, "[autograd] #") == 4);
  const size_t add = text.find("AddBackward"), mul = text.find("MulBackward"),
               acc = text.find("AccumulateGrad");
  REQUIRE(add != std::string::npos);
  REQUIRE(mul != std::string::npos);
  REQUIRE(acc != std::string::npos);
  REQUIRE(add < mul);
  REQUIRE_THAT(text, Contains("grad_outputs: [3]  -> [3] [3]"));
  REQUIRE_THAT(text, Contains("AccumulateGrad  grad_outputs: [3]  -> .grad"));
}

TEST_CASE("the trace ends a node's line when its backward throws", "[autograd]") {
  Tensor x = leaf({3});
  Tensor y = x * x;
  y.backward(ones_like(y));
  std::string text;
  {
    TraceOn trace;
    CaptureCerr capture;
    REQUIRE_THROWS_WITH(y.backward(ones_like(y)), Contains("retain_graph=true"));
    text = capture.text();
  }
  REQUIRE_THAT(text, Contains("MulBackward  grad_outputs: [3]  -> error\n"));
}

TEST_CASE("without the trace backward prints nothing", "[autograd]") {
  autograd::set_trace(false);
  Tensor x = leaf({3});
  Tensor y = x * x;
  CaptureCerr capture;
  y.backward(ones_like(y));
  REQUIRE(capture.text().empty());
}

TEST_CASE("with the trace and anomaly mode both on, the node's trace line ends before the "
          "anomaly Error", "[autograd]") {
  Tensor x = tensor({0.0, 4.0}).requires_grad_();
  Tensor y = sqrt(x);  // d/dx at 0 is Inf
  std::string text;
  {
    TraceOn trace;
    autograd::DetectAnomalyGuard anomaly;
    CaptureCerr capture;
    REQUIRE_THROWS_WITH(y.backward(ones_like(y)), Contains("autograd anomaly: SqrtBackward"));
    text = capture.text();
  }
  REQUIRE_THAT(text, Contains("SqrtBackward  grad_outputs: [2]  -> [2]\n"));
  REQUIRE(count(text, "AccumulateGrad") == 0);  // backward stopped at the anomaly
}
