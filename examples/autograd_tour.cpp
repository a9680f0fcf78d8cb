// A tour of ember's autograd (docs/autograd.md explains what it shows):
// record a small expression, print its tape and saved bytes, write a Graphviz
// picture of it, run backward with the trace on, then see what detach(),
// NoGradGuard, retain_graph and create_graph change.
//
//   autograd_tour [graph.dot]      (default ./autograd_tour.dot)
//   dot -Tsvg graph.dot -o graph.svg
#include <ember/ember.h>

#include <fstream>
#include <iostream>
#include <string>

using namespace ember;

namespace {

void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }

void print_stats(const char* what, const Tensor& t) {
  const autograd::GraphStats s = autograd::graph_stats(t);
  std::cout << what << ": " << s.nodes << " nodes (" << s.leaves
            << (s.leaves == 1 ? " leaf), " : " leaves), ") << s.saved_tensors << " saved tensors, "
            << s.saved_bytes << " bytes saved\n";
}

// The tape: every node in recording order, what it made and what it keeps.
void print_tape(const Tensor& root) {
  for (const auto& node : autograd::graph_nodes(root)) {
    std::cout << "  #" << node->sequence_nr() << ' ' << node->name();
    for (const autograd::TensorMeta& out : node->output_meta()) std::cout << "  -> " << out.sizes;
    std::cout << "  saved " << node->num_saved() << " (" << node->saved_bytes() << " B)\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dot_path = argc > 1 ? argv[1] : "autograd_tour.dot";
  manual_seed(0);

  // One tanh layer and a squared-error loss: x (4, 3) is data, W (3, 2) and b (2) are parameters.
  Tensor x = randn({4, 3});
  Tensor W = randn({3, 2}).requires_grad_();
  Tensor b = zeros({2}).requires_grad_();
  Tensor target = ones({4, 2});

  section("1. recording: each op on a tensor that requires grad adds a node");
  Tensor h = tanh(matmul(x, W) + b);  // (4, 2)
  Tensor diff = h - target;
  Tensor loss = (diff * diff).mean();  // ()
  std::cout << "loss = " << loss.item<float>() << ", loss.grad_fn() = " << loss.grad_fn()->name()
            << "\n";
  print_stats("graph behind loss", loss);
  print_tape(loss);

  section("2. the picture");
  {
    std::ofstream file(dot_path);
    file << autograd::to_dot({{"loss", loss}, {"h", h}, {"W", W}, {"b", b}});
    if (!file) {
      std::cerr << "cannot write " << dot_path << "\n";
      return 1;
    }
  }
  std::cout << "wrote " << dot_path << " (render it with: dot -Tsvg " << dot_path
            << " -o autograd.svg)\n";

  section("3. backward, traced (EMBER_AUTOGRAD_TRACE=1 does the same)");
  std::cout << "the trace goes to stderr: #creation-number node  grad_outputs: shapes  -> "
               "gradients it returns\n"
            << std::flush;
  const bool trace_was_on = autograd::trace_enabled();
  autograd::set_trace(true);
  loss.backward();
  autograd::set_trace(trace_was_on);
  std::cerr << std::flush;
  std::cout << "W.grad:\n" << W.grad() << "\nb.grad:\n" << b.grad() << "\n";
  print_stats("after backward (saved tensors freed)", loss);

  section("4. detach(): cut the graph");
  // A second layer V on top of h. Detaching h (as a GAN's critic step does with the generator's
  // output) makes it a constant: the first layer's nodes and saved tensors drop out of the graph.
  Tensor V = randn({2, 2}).requires_grad_();
  Tensor h2 = tanh(matmul(x, W) + b);
  Tensor through = matmul(h2, V).pow(2).mean();
  Tensor cut = matmul(h2.detach(), V).pow(2).mean();
  print_stats("through h   ", through);
  print_stats("h.detach()  ", cut);
  print_stats("h.detach() itself", h2.detach());
  std::cout << "h.detach() shares h's storage: " << std::boolalpha << h2.detach().is_alias_of(h2)
            << ", requires_grad: " << h2.detach().requires_grad() << "\n";

  section("5. NoGradGuard: evaluation records and saves nothing");
  {
    NoGradGuard no_grad;
    Tensor eval = (tanh(matmul(x, W) + b) - target).pow(2).mean();
    std::cout << "eval loss = " << eval.item<float>() << ", requires_grad: " << eval.requires_grad()
              << "\n";
    print_stats("graph behind eval loss", eval);
  }

  section("6. retain_graph: backward twice accumulates into .grad");
  W.mutable_grad().zero_();  // .grad itself does not require grad: no guard needed
  Tensor y = (tanh(matmul(x, W) + b)).sum();
  y.backward({}, /*retain_graph=*/true);
  const float first = W.grad().sum().item<float>();
  print_stats("after backward(retain_graph=true)", y);
  y.backward();
  std::cout << "sum of W.grad after one backward: " << first << ", after two: "
            << W.grad().sum().item<float>() << "\n";
  print_stats("after the second backward", y);
  try {
    y.backward();
  } catch (const Error& e) {
    std::cout << "a third backward: " << e.what() << "\n";
  }

  section("7. create_graph: differentiate a gradient (d2/dz2 of z^3 = 6z)");
  Tensor z = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor cube = z.pow(3).sum();
  Tensor dz = autograd::grad({cube}, {z}, {}, std::nullopt, /*create_graph=*/true)[0];
  std::cout << "dz = 3z^2:\n" << dz << "\n";
  print_stats("graph behind dz (create_graph=true)", dz);
  Tensor d2z = autograd::grad({dz.sum()}, {z})[0];
  std::cout << "d2z = 6z:\n" << d2z << "\n";
  Tensor dz_plain = autograd::grad({z.pow(3).sum()}, {z})[0];
  print_stats("graph behind dz (create_graph=false)", dz_plain);
  return 0;
}
