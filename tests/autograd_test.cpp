// Autograd semantics: detach, item, grad mode, accumulation, retain_graph,
// version checks, hooks, autograd::grad, double backward, anomaly mode and
// the release of saved tensors. The graph tools are in autograd_tools_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <ember/autograd/function.h>
#include <ember/ember.h>

#include "test_helpers.h"

using namespace ember;
using Catch::Contains;
using ember_test::values;

namespace {

Tensor f64(std::initializer_list<double> values) {
  return tensor(TensorDataContainer(std::vector<double>(values)), kDouble);
}

Tensor leaf(std::initializer_list<double> values) { return f64(values).requires_grad_(); }

void require_values(const Tensor& t, const std::vector<double>& expected) {
  REQUIRE(t.defined());
  const std::vector<double> got = values(t);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(expected[i]).epsilon(1e-12));
}

}  // namespace

// ---- detach, item ----

TEST_CASE("detach shares storage and the version counter with the original", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  Tensor d = y.detach();
  REQUIRE(d.is_alias_of(y));
  REQUIRE(d.data_ptr() == y.data_ptr());
  REQUIRE(d._version() == y._version());
  const uint32_t before = y._version();
  d.add_(1.0);
  REQUIRE(y._version() == before + 1);
  REQUIRE(d._version() == y._version());
}

TEST_CASE("detach returns a leaf with no grad_fn that does not require grad", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * x;
  Tensor d = y.detach();
  REQUIRE(y.grad_fn() != nullptr);
  REQUIRE(d.is_leaf());
  REQUIRE(d.grad_fn() == nullptr);
  REQUIRE_FALSE(d.requires_grad());
  REQUIRE(y.requires_grad());  // the original keeps its history
}

TEST_CASE("modifying a detached tensor in place is visible in the original", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  y.detach().mul_(10.0);
  require_values(y, {20, 40, 60});
  x.detach().zero_();
  require_values(x, {0, 0, 0});
}

TEST_CASE("an in-place change through detach() is caught by the saved-tensor version check",
          "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * x;  // MulBackward saves x
  x.detach().add_(1.0);
  REQUIRE_THROWS_WITH(y.backward(ones_like(y)), Contains("MulBackward") && Contains("version 0") &&
                                                    Contains("version 1"));
}

TEST_CASE("detach_ makes a non-leaf a leaf in place", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3.0;
  Tensor alias = y;  // same handle: detach_ changes the tensor itself
  y.detach_();
  REQUIRE(y.is_leaf());
  REQUIRE(alias.grad_fn() == nullptr);
  REQUIRE_FALSE(alias.requires_grad());
  require_values(y, {3, 6});
}

TEST_CASE("item returns the value and leaves the graph intact for backward", "[autograd]") {
  Tensor x = leaf({3});
  Tensor y = x * x + x;  // 12; dy/dx = 2x + 1 = 7
  REQUIRE(y.item<double>() == 12.0);
  REQUIRE(y.item().toDouble() == 12.0);
  REQUIRE(y.grad_fn() != nullptr);
  y.backward();
  require_values(x.grad(), {7});
}

TEST_CASE("item on a tensor with several elements throws naming the shape", "[autograd]") {
  Tensor t = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(t.item(), Contains("item") && Contains("[2, 3]") && Contains("6 elements"));
  REQUIRE_THROWS_WITH(t.item<double>(), Contains("[2, 3]"));
}

// ---- grad mode ----

TEST_CASE("NoGradGuard records no node and saves no tensor", "[autograd]") {
  Tensor x = leaf({1, 2, 3}), w = leaf({4, 5, 6});
  Tensor y;
  {
    NoGradGuard no_grad;
    y = x * w + x;
  }
  REQUIRE_FALSE(y.requires_grad());
  REQUIRE(y.grad_fn() == nullptr);
  const autograd::GraphStats stats = autograd::graph_stats(y);
  REQUIRE(stats.nodes == 0);
  REQUIRE(stats.saved_tensors == 0);
  REQUIRE(stats.saved_bytes == 0);
  require_values(y, {5, 12, 21});
}

TEST_CASE("InferenceMode turns grad mode off for its scope (InferenceMode(false) back on)",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  {
    InferenceMode guard;
    REQUIRE_FALSE((x * 2.0).requires_grad());
    {
      InferenceMode off(false);
      REQUIRE((x * 2.0).requires_grad());
    }
  }
  REQUIRE(GradMode::is_enabled());
}

TEST_CASE("NoGradGuard nests and restores the previous grad mode on exit", "[autograd]") {
  REQUIRE(GradMode::is_enabled());
  {
    NoGradGuard outer;
    REQUIRE_FALSE(GradMode::is_enabled());
    {
      NoGradGuard inner;
      REQUIRE_FALSE(GradMode::is_enabled());
      {
        AutoGradMode enable(true);
        REQUIRE(GradMode::is_enabled());
      }
      REQUIRE_FALSE(GradMode::is_enabled());
    }
    REQUIRE_FALSE(GradMode::is_enabled());
  }
  REQUIRE(GradMode::is_enabled());
}

TEST_CASE("grad mode is thread-local: another thread records while this one is in no-grad",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  NoGradGuard no_grad;
  bool other_enabled = false, other_recorded = false;
  std::thread other([&] {
    other_enabled = GradMode::is_enabled();
    other_recorded = (x * x).grad_fn() != nullptr;
  });
  other.join();
  REQUIRE(other_enabled);
  REQUIRE(other_recorded);
  REQUIRE_FALSE(GradMode::is_enabled());
  REQUIRE((x * x).grad_fn() == nullptr);
}

TEST_CASE("GradMode::set_enabled turns recording off and on", "[autograd]") {
  Tensor x = leaf({1});
  GradMode::set_enabled(false);
  const bool off = GradMode::is_enabled();
  const bool recorded_off = (x * 2.0).requires_grad();
  GradMode::set_enabled(true);
  REQUIRE_FALSE(off);
  REQUIRE_FALSE(recorded_off);
  REQUIRE(GradMode::is_enabled());
  REQUIRE((x * 2.0).requires_grad());
}

// ---- accumulation and retain_graph ----

TEST_CASE("a value used twice (diamond graph) gets the sum of both paths' gradients",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3.0;
  Tensor z = y * y + y;  // dz/dx = (2y + 1) * 3 = 18x + 3
  z.backward(ones_like(z));
  require_values(x.grad(), {21, 39});
}

TEST_CASE("a leaf used by two ops gets both contributions", "[autograd]") {
  Tensor x = leaf({2, 5});
  Tensor w = leaf({3, 4});
  Tensor y = x * w + x / w;  // dy/dx = w + 1/w, dy/dw = x - x/w^2
  y.backward(ones_like(y));
  require_values(x.grad(), {3 + 1.0 / 3, 4 + 1.0 / 4});
  require_values(w.grad(), {2 - 2.0 / 9, 5 - 5.0 / 16});
}

TEST_CASE("retain_graph lets backward run twice and .grad accumulates (doubles)", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  y.backward(ones_like(y), /*retain_graph=*/true);
  require_values(x.grad(), {2, 4});
  y.backward(ones_like(y));
  require_values(x.grad(), {4, 8});
}

TEST_CASE("a second backward through a freed graph throws asking for retain_graph=true",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  y.backward(ones_like(y));
  REQUIRE_THROWS_WITH(y.backward(ones_like(y)),
                      Contains("MulBackward") && Contains("retain_graph=true"));
}

TEST_CASE("an in-place change to a saved tensor makes backward name the op and both versions",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor h = x * 2.0;
  Tensor y = h * h;  // MulBackward saves h (version 0)
  h.add_(1.0);       // version 1
  REQUIRE_THROWS_WITH(y.backward(ones_like(y)),
                      Contains("MulBackward") && Contains("modified by an in-place operation") &&
                          Contains("version 0") && Contains("now at version 1"));
}

TEST_CASE("backward on a non-scalar output without a gradient throws naming the shape",
          "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  REQUIRE_THROWS_WITH(y.backward(), Contains("backward") && Contains("[3]") &&
                                        Contains("one element"));
}

TEST_CASE("backward on a tensor that has no graph throws", "[autograd]") {
  Tensor c = f64({1});
  REQUIRE_THROWS_WITH(c.backward(), Contains("does not require grad"));
}

TEST_CASE("an in-place op on a leaf that requires grad throws, and works under NoGradGuard",
          "[autograd]") {
  Tensor w = leaf({1, 2});
  REQUIRE_THROWS_WITH(w.add_(1.0), Contains("add_") && Contains("leaf") && Contains("NoGradGuard"));
  REQUIRE_THROWS_WITH(w.mul_(2.0), Contains("mul_") && Contains("leaf"));
  const uint32_t before = w._version();
  {
    NoGradGuard no_grad;
    w.sub_(f64({0.5, 0.5}));  // an optimizer step
  }
  REQUIRE(w._version() == before + 1);
  REQUIRE(w.requires_grad());
  REQUIRE(w.is_leaf());
  require_values(w, {0.5, 1.5});
}

// ---- hooks and retain_grad ----

TEST_CASE("a hook on a leaf fires once with the summed gradient and can replace it", "[autograd]") {
  Tensor x = leaf({1, 2});
  int calls = 0;
  Tensor seen;
  x.register_hook(std::function<Tensor(const Tensor&)>([&](const Tensor& g) {
    ++calls;
    seen = g.clone();
    return g * 10.0;
  }));
  Tensor y = x * 3.0 + x;  // two paths into x: 3 + 1
  y.backward(ones_like(y));
  REQUIRE(calls == 1);
  require_values(seen, {4, 4});
  require_values(x.grad(), {40, 40});
}

TEST_CASE("a hook on a non-leaf fires once and its replacement flows to the inputs", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  int calls = 0;
  Tensor seen;
  y.register_hook(std::function<Tensor(const Tensor&)>([&](const Tensor& g) {
    ++calls;
    seen = g.clone();
    return g * 10.0;
  }));
  Tensor z = y * 3.0 + y;  // dz/dy = 4
  z.backward(ones_like(z));
  REQUIRE(calls == 1);
  require_values(seen, {4, 4});
  require_values(x.grad(), {80, 80});  // 4 * 10 * 2
}

TEST_CASE("a hook that returns nothing observes without changing the gradient", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor seen;
  x.register_hook(std::function<void(const Tensor&)>([&](const Tensor& g) { seen = g.clone(); }));
  Tensor y = x * x;
  y.backward(ones_like(y));
  require_values(seen, {2, 4});
  require_values(x.grad(), {2, 4});
}

TEST_CASE("remove_hook stops a hook from firing (leaf and non-leaf)", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  int leaf_calls = 0, node_calls = 0;
  using Observer = std::function<void(const Tensor&)>;
  const unsigned hx = x.register_hook(Observer([&](const Tensor&) { ++leaf_calls; }));
  const unsigned hy = y.register_hook(Observer([&](const Tensor&) { ++node_calls; }));
  x.remove_hook(hx);
  y.remove_hook(hy);
  (y * y).backward(ones_like(y));
  REQUIRE(leaf_calls == 0);
  REQUIRE(node_calls == 0);
  require_values(x.grad(), {8, 16});  // d(4x^2)/dx
}

TEST_CASE("register_hook on a tensor that does not require grad throws", "[autograd]") {
  Tensor c = f64({1});
  REQUIRE_THROWS_WITH(c.register_hook(std::function<void(const Tensor&)>([](const Tensor&) {})),
                      Contains("register_hook") && Contains("does not require grad"));
}

TEST_CASE("a post-accumulate hook sees the leaf after its .grad is updated, each backward",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  std::vector<Tensor> seen;
  const unsigned h = x.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
    REQUIRE(leaf.impl() == x.impl());
    seen.push_back(leaf.grad().clone());
  });
  Tensor y = x * 3.0 + x;  // two paths: the hook runs once, after the sum 4 is accumulated
  y.backward(ones_like(y), /*retain_graph=*/true);
  y.backward(ones_like(y));
  REQUIRE(seen.size() == 2);
  require_values(seen[0], {4, 4});
  require_values(seen[1], {8, 8});  // .grad accumulates: 4 + 4
  x.remove_hook(h);
  (x * 2.0).backward(ones_like(x));
  REQUIRE(seen.size() == 2);
}

TEST_CASE("register_post_accumulate_grad_hook refuses non-leaves and tensors without grad",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  auto noop = [](const Tensor&) {};
  REQUIRE_THROWS_WITH(y.register_post_accumulate_grad_hook(noop),
                      Contains("register_post_accumulate_grad_hook") && Contains("not a leaf"));
  REQUIRE_THROWS_WITH(f64({1}).register_post_accumulate_grad_hook(noop),
                      Contains("does not require grad"));
}

TEST_CASE("queue_callback runs after every node of the backward, in order, and refuses outside one",
          "[autograd]") {
  Tensor a = leaf({1, 2});
  Tensor b = leaf({3});
  std::vector<std::string> order;
  a.register_post_accumulate_grad_hook([&](const Tensor&) {
    order.push_back("a");
    autograd::queue_callback([&] {
      // Every leaf has its gradient by now, whichever accumulated last.
      REQUIRE(a.grad().defined());
      REQUIRE(b.grad().defined());
      order.push_back("first");
      autograd::queue_callback([&] { order.push_back("queued by a callback"); });
    });
  });
  b.register_post_accumulate_grad_hook([&](const Tensor&) { order.push_back("b"); });
  (a * b).sum().backward();
  REQUIRE(order.size() == 4);
  REQUIRE(order[2] == "first");
  REQUIRE(order[3] == "queued by a callback");
  REQUIRE_THROWS_WITH(autograd::queue_callback([] {}), Contains("no backward is running"));
}

TEST_CASE("queue_callback inside a nested backward runs when that backward ends", "[autograd]") {
  Tensor x = leaf({2});
  Tensor inner = leaf({5});
  Tensor inner_loss = (inner * 2.0).sum();  // recorded now: backward runs with grad mode off
  std::vector<std::string> order;
  x.register_post_accumulate_grad_hook([&](const Tensor&) {
    autograd::queue_callback([&] { order.push_back("outer"); });
    inner.register_post_accumulate_grad_hook(
        [&](const Tensor&) { autograd::queue_callback([&] { order.push_back("inner"); }); });
    inner_loss.backward();
    order.push_back("after inner backward");
  });
  (x * x).sum().backward();
  REQUIRE(order == std::vector<std::string>{"inner", "after inner backward", "outer"});
}

TEST_CASE("retain_grad keeps the gradient of a non-leaf; without it .grad stays undefined",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor kept = x * 2.0;
  Tensor dropped = x * 3.0;
  kept.retain_grad();
  REQUIRE(kept.retains_grad());
  REQUIRE_FALSE(dropped.retains_grad());
  Tensor z = kept * kept + dropped;
  z.backward(ones_like(z));
  require_values(kept.grad(), {4, 8});  // 2 * kept
  REQUIRE_FALSE(dropped.grad().defined());
  require_values(x.grad(), {11, 19});  // 8x + 3
}

TEST_CASE("grad() is undefined before the first backward reaches the leaf", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor unused = leaf({5});
  REQUIRE_FALSE(x.grad().defined());
  Tensor y = x * x;
  REQUIRE_FALSE(x.grad().defined());
  y.backward(ones_like(y));
  REQUIRE(x.grad().defined());
  REQUIRE_FALSE(unused.grad().defined());
}

// ---- autograd::grad ----

TEST_CASE("autograd::grad rejects an unused input unless allow_unused, which gives undefined",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor unused = leaf({3});
  Tensor y = x * x;
  REQUIRE_THROWS_WITH(autograd::grad({y}, {x, unused}, {ones_like(y)}, /*retain_graph=*/true),
                      Contains("input 1") && Contains("allow_unused=true"));
  tensor_list g = autograd::grad({y}, {x, unused}, {ones_like(y)}, std::nullopt, false,
                                 /*allow_unused=*/true);
  REQUIRE(g.size() == 2);
  require_values(g[0], {2, 4});
  REQUIRE_FALSE(g[1].defined());
}

TEST_CASE("autograd::grad returns gradients without touching .grad", "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3, 4});
  Tensor y = x * w;
  tensor_list g = autograd::grad({y}, {x}, {ones_like(y)});
  require_values(g[0], {3, 4});
  REQUIRE_FALSE(g[0].requires_grad());
  REQUIRE_FALSE(x.grad().defined());
  REQUIRE_FALSE(w.grad().defined());
}

TEST_CASE("autograd::grad with respect to a non-leaf returns the gradient arriving there",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor h = x * 2.0;
  Tensor y = h * h;
  tensor_list g = autograd::grad({y}, {h}, {ones_like(y)});
  require_values(g[0], {4, 8});  // 2h
  REQUIRE_FALSE(x.grad().defined());
}

// ---- double backward ----

TEST_CASE("create_graph makes the gradient differentiable: d2/dx2 of x^3 is 6x", "[autograd]") {
  Tensor x = leaf({1, 2, -3});
  Tensor y = pow(x, 3);
  tensor_list dy = autograd::grad({y}, {x}, {ones_like(y)}, std::nullopt, /*create_graph=*/true);
  require_values(dy[0], {3, 12, 27});  // 3x^2
  REQUIRE(dy[0].requires_grad());
  tensor_list d2y = autograd::grad({dy[0]}, {x}, {ones_like(x)});
  require_values(d2y[0], {6, 12, -18});
}

TEST_CASE("backward with create_graph leaves a .grad that can be differentiated again",
          "[autograd]") {
  Tensor x = leaf({2});
  Tensor y = x * x * x;
  y.backward(Tensor(), std::nullopt, /*create_graph=*/true);
  Tensor first = x.grad();  // 3x^2 = 12, with a graph
  require_values(first, {12});
  REQUIRE(first.requires_grad());
  tensor_list second = autograd::grad({first}, {x});
  require_values(second[0], {12});  // 6x
  x.set_grad(Tensor());  // breaks the x -> .grad -> graph -> x cycle (see the test below)
}

TEST_CASE("after backward with create_graph, resetting .grad frees the leaf and its .grad graph",
          "[autograd]") {
  // x.grad's graph saved x itself (d(x^3)/dx = 3 x x), so x -> .grad -> graph -> x is a cycle,
  // as in PyTorch; set_grad({}) (PyTorch: x.grad = None) breaks it.
  std::weak_ptr<TensorImpl> leaf_impl, grad_impl;
  {
    Tensor x = leaf({2});
    Tensor y = x * x * x;
    y.backward(Tensor(), std::nullopt, /*create_graph=*/true);
    leaf_impl = x.impl();
    grad_impl = x.grad().impl();
    REQUIRE(x.grad().grad_fn() != nullptr);
    x.set_grad(Tensor());
  }
  REQUIRE(leaf_impl.expired());
  REQUIRE(grad_impl.expired());
}

namespace {

// A test op whose derivative reads its own output: out = x^3, d out/dx = 3 out / x. The output is
// saved before set_history (as ops that save their output often do); double backward needs the
// saved output re-attached to this node.
Tensor cube_via_output(const Tensor& x) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = x * x * x;
  }
  if (autograd::needs_grad(x)) {
    auto backward = [](autograd::Node& n, const tensor_list& g) {
      return tensor_list{g[0] * n.saved(1) * 3.0 / n.saved(0)};
    };
    auto node = autograd::make_node("CubeBackward", {x}, backward);
    node->save(x);
    node->save(out, /*is_output=*/true);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

TEST_CASE("an output saved before set_history keeps its history for double backward",
          "[autograd]") {
  Tensor x = leaf({1.5, -2.0, 0.7});
  auto fn = [](const tensor_list& in) { return cube_via_output(in[0]); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x}));
}

TEST_CASE("pow with a tensor exponent passes gradgradcheck (its saved output keeps its history)",
          "[autograd]") {
  Tensor a = leaf({1.3, 0.6, 2.1});
  Tensor b = leaf({0.5, 1.7, -1.2});
  auto fn = [](const tensor_list& in) { return pow(in[0], in[1]); };
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {a, b}));
}

namespace {

// Critic D(x) = w2 . tanh(W1 x + b1); x: (3), W1: (4, 3), b1: (4), w2: (4).
// gp = (||dD/dx|| - 1)^2, the WGAN-GP penalty, built with autograd::grad(create_graph=true).
Tensor gradient_penalty(const Tensor& x_value, const Tensor& W1, const Tensor& b1,
                        const Tensor& w2) {
  Tensor x = x_value.detach().requires_grad_();
  Tensor hidden = tanh(matmul(W1, x) + b1);
  Tensor d = sum(w2 * hidden);
  Tensor dx = autograd::grad({d}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  Tensor norm = sqrt(sum(dx * dx));
  return pow(norm - 1.0, 2);
}

}  // namespace

TEST_CASE("the gradient of a WGAN-GP gradient penalty w.r.t. W1 matches finite differences",
          "[autograd]") {
  manual_seed(7);
  Tensor x = randn({3}, kDouble);
  Tensor W1 = randn({4, 3}, kDouble).requires_grad_();
  Tensor b1 = randn({4}, kDouble);
  Tensor w2 = randn({4}, kDouble) * 2.0;

  // The penalty is a real function of W1 (non-zero, and its gradient reaches W1).
  Tensor gp = gradient_penalty(x, W1, b1, w2);
  REQUIRE(gp.item<double>() > 1e-6);
  gp.backward();
  REQUIRE(W1.grad().defined());

  auto fn = [&](const tensor_list& in) { return gradient_penalty(x, in[0], b1, w2); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {W1}));
}

TEST_CASE("gradgradcheck passes for a 2-layer MLP (matmul, tanh, sum)", "[autograd]") {
  manual_seed(11);
  Tensor x = randn({5, 3}, kDouble);
  Tensor W1 = (randn({3, 4}, kDouble) * 0.5).requires_grad_();
  Tensor b1 = (randn({4}, kDouble) * 0.1).requires_grad_();
  Tensor W2 = (randn({4, 2}, kDouble) * 0.5).requires_grad_();
  auto mlp = [&x](const tensor_list& p) {
    Tensor h = tanh(matmul(x, p[0]) + p[1]);
    return sum(matmul(h, p[2]) * matmul(h, p[2]));
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(mlp, {W1, b1, W2}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(mlp, {W1, b1, W2}));
}

TEST_CASE("gradgradcheck passes for an MLP with relu away from its kink", "[autograd]") {
  Tensor x = f64({0.5, -1.0, 2.0, 1.5, 0.3, -0.7}).reshape({2, 3});
  Tensor W1 = f64({0.9, -0.4, 0.3, 0.2, 0.8, -0.5}).reshape({3, 2}).requires_grad_();
  Tensor W2 = f64({1.1, -0.6}).reshape({2, 1}).requires_grad_();
  auto mlp = [&x](const tensor_list& p) {
    Tensor y = matmul(relu(matmul(x, p[0])), p[1]);
    return sum(y * y);
  };
  REQUIRE_GRADCHECK(autograd::gradgradcheck(mlp, {W1, W2}));
}

// ---- anomaly mode ----

TEST_CASE("anomaly mode names the node whose backward produced Inf (pow(x, 0.5) at 0)",
          "[autograd]") {
  Tensor x = leaf({0.0, 4.0});
  Tensor y = pow(x, 0.5);
  {
    autograd::DetectAnomalyGuard anomaly;
    REQUIRE_THROWS_WITH(y.backward(ones_like(y), /*retain_graph=*/true),
                        Contains("anomaly") && Contains("PowBackward") && Contains("NaN or Inf"));
  }
  REQUIRE_FALSE(autograd::AnomalyMode::is_enabled());
  y.backward(ones_like(y));  // without anomaly mode the Inf just flows into .grad
  REQUIRE(std::isinf(values(x.grad())[0]));
  REQUIRE(values(x.grad())[1] == Approx(0.25));
}

TEST_CASE("anomaly mode names the node whose backward produced NaN (0 * log(0))", "[autograd]") {
  Tensor x = leaf({0.0, 1.0});
  Tensor y = x * log(x);  // d/dx at 0: log(0) + x/x = -inf + nan
  autograd::DetectAnomalyGuard anomaly;
  REQUIRE_THROWS_WITH(y.backward(ones_like(y)), Contains("anomaly") && Contains("Backward"));
}

TEST_CASE("anomaly mode names sqrt's backward at 0", "[autograd]") {
  Tensor x = leaf({0.0, 1.0});
  Tensor y = sqrt(x);
  autograd::DetectAnomalyGuard anomaly;
  REQUIRE_THROWS_WITH(y.backward(ones_like(y)), Contains("anomaly") && Contains("Sqrt"));
}

// ---- memory ----

TEST_CASE("backward frees the saved tensors: memory returns to the pre-forward level",
          "[autograd]") {
  Tensor x = randn({4096}, kDouble).requires_grad_();
  Tensor w = randn({4096}, kDouble).requires_grad_();
  auto step = [&] {
    Tensor h = x * w;       // saves x and w
    Tensor y = h * h + x;   // saves h twice
    y.backward(ones_like(y));
  };
  step();  // creates x.grad and w.grad; later steps accumulate into them in place
  const size_t before = cpu::memory_stats().allocated_bytes;
  cpu::reset_peak_memory_stats();
  step();
  REQUIRE(cpu::memory_stats().peak_allocated_bytes > before + 2 * 4096 * sizeof(double));
  REQUIRE(cpu::memory_stats().allocated_bytes == before);
}

TEST_CASE("saved_bytes drops to 0 after backward, and stays with retain_graph", "[autograd]") {
  Tensor x = randn({100}, kDouble).requires_grad_();
  Tensor h = x * 2.0;
  Tensor y = h * h;
  const autograd::GraphStats before = autograd::graph_stats(y);
  REQUIRE(before.saved_bytes >= 2 * 100 * sizeof(double));
  y.backward(ones_like(y), /*retain_graph=*/true);
  REQUIRE(autograd::graph_stats(y).saved_bytes == before.saved_bytes);
  y.backward(ones_like(y));
  const autograd::GraphStats after = autograd::graph_stats(y);
  REQUIRE(after.saved_bytes == 0);
  REQUIRE(after.saved_tensors == 0);
  REQUIRE(after.nodes == before.nodes);  // the nodes stay; only what they saved is freed
}

TEST_CASE("detach and NoGradGuard reduce the saved bytes of a graph", "[autograd]") {
  Tensor x = randn({64}, kDouble).requires_grad_();
  Tensor w = randn({64}, kDouble).requires_grad_();
  const size_t full = autograd::graph_stats((x * w) * (x * w)).saved_bytes;
  const size_t cut = autograd::graph_stats((x * w).detach() * x).saved_bytes;
  Tensor no_grad_result;
  {
    NoGradGuard guard;
    no_grad_result = (x * w) * (x * w);
  }
  REQUIRE(full == 6 * 64 * sizeof(double));  // two MulBackward of x*w save 2 each, the outer 2
  REQUIRE(cut == 64 * sizeof(double));       // only the detached product, saved for x's gradient
  REQUIRE(autograd::graph_stats(no_grad_result).saved_bytes == 0);
}

TEST_CASE("backward through zero-size tensors gives zero-size gradients", "[autograd]") {
  Tensor x = zeros({0, 3}, kDouble).requires_grad_();
  Tensor w = ones({3}, kDouble).requires_grad_();
  Tensor y = x * w;  // (0, 3)
  REQUIRE(autograd::graph_stats(y).saved_bytes == 3 * sizeof(double));  // w; x has no bytes
  y.backward(ones_like(y));
  REQUIRE(x.grad().sizes() == x.sizes());
  require_values(w.grad(), {0, 0, 0});  // summed over the empty dimension
}

// ---- non-differentiable outputs ----

TEST_CASE("comparisons and argmax give outputs that do not require grad", "[autograd]") {
  Tensor x = leaf({1, -2, 3});
  Tensor gt0 = x > 0.0;
  Tensor eq = x == x;
  Tensor am = x.argmax();
  REQUIRE(gt0.scalar_type() == kBool);
  REQUIRE_FALSE(gt0.requires_grad());
  REQUIRE(gt0.grad_fn() == nullptr);
  REQUIRE_FALSE(eq.requires_grad());
  REQUIRE(am.scalar_type() == kLong);
  REQUIRE_FALSE(am.requires_grad());
  REQUIRE(am.item<int64_t>() == 2);
  REQUIRE_THROWS_WITH(am.backward(), Contains("non-differentiable op such as a comparison, argmax"));
}

TEST_CASE("requires_grad_ is refused for integer tensors and for turning a non-leaf off",
          "[autograd]") {
  Tensor i = zeros({2}, kLong);
  REQUIRE_THROWS_WITH(i.requires_grad_(), Contains("floating point") && Contains("int64"));
  Tensor y = leaf({1}) * 2.0;
  REQUIRE_THROWS_WITH(y.requires_grad_(false), Contains("leaf") && Contains("MulBackward"));
  // Turning it on is a no-op, as PyTorch: it already requires grad.
  REQUIRE(y.requires_grad_(true).grad_fn()->name() == "MulBackward");
}

TEST_CASE("a leaf that stops requiring grad after its graph was recorded gets no .grad",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = (x * 3.0).sum();
  x.requires_grad_(false);
  y.backward();
  REQUIRE_FALSE(x.grad().defined());
}

TEST_CASE("backward casts a gradient of another dtype to the output's, as libtorch",
          "[autograd]") {
  Tensor x = ones({2}).requires_grad_();
  Tensor y = x * 2.0;
  y.backward(tensor({1.0, 3.0}, kDouble));
  REQUIRE(x.grad().scalar_type() == kFloat);
  require_values(x.grad(), {2, 6});
}

TEST_CASE("a root given twice sends its gradient twice", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  autograd::backward({y, y}, {ones_like(y), ones_like(y) * 3.0});
  require_values(x.grad(), {8, 8, 8});
  Tensor s = (x * x).sum();
  const tensor_list g = autograd::grad({s, s}, {x});
  require_values(g[0], {4, 8, 12});  // 2 * 2x
}

// ---- views of a tensor changed in place: Note [Views of a tensor changed in place] ----

TEST_CASE("a view made before an in-place op on its base sees the op in its gradient",
          "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 1.0;
  Tensor v = y.select(0, 0);
  y.mul_(2.0);
  REQUIRE(v.grad_fn()->name() == "ViewOfBaseBackward");
  v.backward();
  require_values(x.grad(), {2, 0, 0});

  Tensor x2 = leaf({1, 2, 3});
  Tensor y2 = x2 * 1.0;
  Tensor s = y2.slice(0, 0, 2);
  y2.mul_(3.0);
  (s * s).sum().backward();  // s = 3 x[:2]: d(9 x^2) = 18 x
  require_values(x2.grad(), {18, 36, 0});
}

TEST_CASE("a view of a tensor that had no history joins the graph of an in-place op on it",
          "[autograd]") {
  Tensor w = leaf({1, 2, 3});
  Tensor y = ones({3}, kDouble);
  Tensor v = y.slice(0, 1, 3);
  REQUIRE_FALSE(v.requires_grad());
  y.mul_(w);
  REQUIRE(v.requires_grad());
  (v * f64({10, 100})).sum().backward();
  require_values(w.grad(), {0, 10, 100});
}

TEST_CASE("views of views, expanded views and a source that requires grad follow the base",
          "[autograd]") {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor w = leaf({5, 6, 7, 8});
  Tensor y = x * 1.0;
  Tensor m = y.view({2, 2});
  Tensor row = m.select(0, 1);               // y[2:4], through a view of a view
  Tensor wide = y.slice(0, 0, 1).expand({3});  // y[0] three times
  y.mul_(w);
  (row.sum() + wide.sum()).backward();
  require_values(x.grad(), {3 * 5, 0, 7, 8});
  require_values(w.grad(), {3 * 1, 0, 3, 4});
}

TEST_CASE("gradcheck and gradgradcheck through a view made before an in-place op", "[autograd]") {
  const Tensor x = randn({3, 4}, kDouble).requires_grad_();
  const autograd::GradcheckFn fn = [](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    Tensor col = y.t().select(0, 2);
    y.mul_(in[0]);
    return (col * col).sum();  // sum over rows of x[:, 2]^4
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x}));
}

TEST_CASE("in-place ops that do not change the base's history leave its views as they were",
          "[autograd]") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  Tensor v = y.select(0, 1);
  {
    NoGradGuard guard;
    y.add_(1.0);  // no new history: v keeps SelectBackward
  }
  REQUIRE(v.grad_fn()->name() == "SelectBackward");
  v.backward();
  require_values(x.grad(), {0, 2});
}

TEST_CASE("retain_grad follows an in-place op to the tensor's new value", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  y.retain_grad();
  y.mul_(3.0);
  (y * y).sum().backward();
  require_values(y.grad(), {12, 24, 36});  // 2 y, y = 6 x
}

TEST_CASE("remove_hook finds a hook registered before an in-place op", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  const unsigned h = y.register_hook([](const Tensor& g) { return g * 0.0; });
  y.mul_(3.0);
  y.remove_hook(h);
  (y * y).sum().backward();
  require_values(x.grad(), {72, 144, 216});  // d(36 x^2)
}

TEST_CASE("uniform_ and normal_ on a non-leaf cut its history", "[autograd]") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  y.uniform_();
  REQUIRE(y.grad_fn()->name() == "UniformBackward");
  Tensor z = x * 2.0;
  z.normal_();
  REQUIRE(z.grad_fn()->name() == "NormalBackward");
  (y.sum() + z.sum()).backward();
  REQUIRE_FALSE(x.grad().defined());  // nothing of x is left in y or z
}

TEST_CASE("detach_ is refused on a view", "[autograd]") {
  Tensor y = leaf({1, 2}) * 2.0;
  Tensor v = y.select(0, 0);
  REQUIRE_THROWS_WITH(v.detach_(), Contains("detach_: cannot detach a view in place"));
}

TEST_CASE("gradcheck fails where the function is NaN: nothing there can be shown to agree",
          "[autograd]") {
  const Tensor x = leaf({1, 2});
  const autograd::GradcheckFn fn = [](const tensor_list& in) { return (in[0] - 10.0).log(); };
  const autograd::GradcheckResult r = autograd::gradcheck(fn, {x});
  REQUIRE_FALSE(r.ok);
  REQUIRE(std::isnan(r.numeric));
}
