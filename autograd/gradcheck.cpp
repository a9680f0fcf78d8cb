#include "ember/autograd/gradcheck.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <unordered_set>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/ops/shape/views.h"  // cat: not a Tensor method

namespace ember::autograd {
namespace {

// Address of flat element i (row-major order of sizes) of a float64 tensor.
double* element(const Tensor& t, int64_t i) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (i % t.size(d)) * t.stride(d);
    i /= t.size(d);
  }
  return t.data_ptr<double>() + offset;
}

std::atomic<bool> record_checked{false};
std::mutex checked_mutex;
std::set<std::string> checked_names;  // guarded by checked_mutex

// Remembers the name of every node behind out.
void remember_nodes(const Tensor& out) {
  std::vector<std::shared_ptr<Node>> stack;
  std::unordered_set<const Node*> visited;
  if (out.grad_fn()) stack.push_back(out.grad_fn());
  std::lock_guard<std::mutex> lock(checked_mutex);
  while (!stack.empty()) {
    const std::shared_ptr<Node> node = std::move(stack.back());
    stack.pop_back();
    if (!visited.insert(node.get()).second) continue;
    checked_names.emplace(node->name());
    for (const Edge& e : node->next_edges())
      if (e.fn) stack.push_back(e.fn);
  }
}

Tensor flat_output(const GradcheckFn& fn, const tensor_list& inputs) {
  Tensor out = fn(inputs);
  EMBER_CHECK(out.defined(), "gradcheck: the function returned an undefined tensor");
  EMBER_CHECK(out.scalar_type() == kDouble, "gradcheck: the function must return float64, got ",
              out.scalar_type());
  return out;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps, double atol,
                          double rtol) {
  for (size_t k = 0; k < inputs.size(); ++k)
    EMBER_CHECK(!inputs[k].requires_grad() || inputs[k].scalar_type() == kDouble, "gradcheck: input ",
                k, " requires grad but is ", inputs[k].scalar_type(), "; finite differences need float64");

  GradcheckResult result;
  result.error = -INFINITY;
  const Tensor out = flat_output(fn, inputs);
  const int64_t n_out = out.numel();

  // Analytic Jacobian, one output element (one backward) at a time.
  std::vector<size_t> wrt;
  tensor_list wrt_tensors;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].requires_grad()) {
      wrt.push_back(k);
      wrt_tensors.push_back(inputs[k]);
    }
  if (wrt.empty() || n_out == 0) return result;
  std::vector<tensor_list> analytic;  // [output element][input] -> gradient
  for (int64_t j = 0; j < n_out; ++j) {
    Tensor seed = out.new_zeros(out.sizes());
    *element(seed, j) = 1.0;
    tensor_list g = grad({out}, wrt_tensors, {seed}, /*retain_graph=*/true, false, /*allow_unused=*/true);
    for (size_t w = 0; w < g.size(); ++w)
      if (!g[w].defined()) g[w] = wrt_tensors[w].new_zeros(wrt_tensors[w].sizes(), kDouble);
    analytic.push_back(std::move(g));
  }

  // Numeric Jacobian, one input element at a time, and the comparison. Grad
  // mode stays on: gradgradcheck's function runs backward inside.
  for (size_t w = 0; w < wrt.size(); ++w) {
    const Tensor& x = wrt_tensors[w];
    for (int64_t i = 0; i < x.numel(); ++i) {
      double* p = element(x, i);
      const double orig = *p;
      *p = orig + eps;
      // clone(): the output may be a view of x itself.
      const Tensor plus = flat_output(fn, inputs).detach().clone();
      *p = orig - eps;
      const Tensor minus = flat_output(fn, inputs).detach().clone();
      *p = orig;
      for (int64_t j = 0; j < n_out; ++j) {
        const double numeric = (plus.data_ptr<double>()[j] - minus.data_ptr<double>()[j]) / (2 * eps);
        const double a = *element(analytic[j][w], i);
        const double margin = std::abs(a - numeric) - (atol + rtol * std::abs(numeric));
        // NaN on either side fails: it cannot be shown to agree.
        const bool nan = std::isnan(a) || std::isnan(numeric);
        if (nan || margin > result.error) {
          result.error = nan ? INFINITY : margin;
          result.input = wrt[w];
          result.input_element = i;
          result.output_element = j;
          result.analytic = a;
          result.numeric = numeric;
        }
      }
    }
  }
  result.ok = result.error <= 0;
  // Only a check that ran to the end and passed counts as covering its nodes.
  if (result.ok && record_checked.load(std::memory_order_relaxed)) remember_nodes(out);
  result.message = detail::str_cat(result.ok ? "gradcheck passed" : "gradcheck FAILED",
                                   ": worst at input ", result.input, " element ", result.input_element,
                                   ", output element ", result.output_element, ": analytic ",
                                   result.analytic, " vs numeric ", result.numeric);
  return result;
}

GradcheckResult gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps, double atol,
                              double rtol) {
  Tensor v;
  {
    NoGradGuard guard;
    const Tensor out = fn(inputs);
    v = out.new_empty(out.sizes(), kDouble);
    v.normal_();
  }
  v.requires_grad_(true);
  tensor_list extended = inputs;
  extended.push_back(v);
  const size_t n = inputs.size();
  auto first_derivative = [&fn, n](const tensor_list& xs) {
    tensor_list in(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(n));
    tensor_list wrt;
    for (const Tensor& t : in)
      if (t.requires_grad()) wrt.push_back(t);
    tensor_list g = grad({fn(in)}, wrt, {xs[n]}, true, /*create_graph=*/true, /*allow_unused=*/true);
    tensor_list flat;
    for (size_t i = 0; i < g.size(); ++i)
      flat.push_back((g[i].defined() ? g[i] : wrt[i].new_zeros(wrt[i].sizes(), kDouble)).reshape({-1}));
    return cat(flat, 0);
  };
  return gradcheck(first_derivative, extended, eps, atol, rtol);
}

void set_record_checked_nodes(bool on) { record_checked.store(on, std::memory_order_relaxed); }

std::vector<std::string> checked_node_names() {
  std::lock_guard<std::mutex> lock(checked_mutex);
  return {checked_names.begin(), checked_names.end()};
}

}  // namespace ember::autograd
