#pragma once
// Numerical checks of derivatives, as torch.autograd.gradcheck/gradgradcheck:
// the Jacobian from backward() is compared with central differences
//   (f(x + eps) - f(x - eps)) / (2 eps)
// element by element, in float64. An element passes when
// |analytic - numeric| <= atol + rtol * |numeric|.
#include <functional>
#include <string>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

struct GradcheckResult {
  bool ok = true;
  // The worst element: which input, its flat index, which output element,
  // and both values. Empty when no input requires grad.
  size_t input = 0;
  int64_t input_element = 0;
  int64_t output_element = 0;
  double analytic = 0;
  double numeric = 0;
  double error = 0;  // |analytic - numeric| - (atol + rtol*|numeric|), the margin; > 0 fails
  std::string message;
  explicit operator bool() const { return ok; }
};

using GradcheckFn = std::function<Tensor(const tensor_list&)>;

// Inputs that require grad must be float64 (others are passed through).
GradcheckResult gradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps = 1e-6,
                          double atol = 1e-5, double rtol = 1e-3);
// Checks the derivative of the gradient: gradcheck of
// (inputs, v) -> autograd::grad(fn(inputs), inputs, v, create_graph=true)
// for a random v.
GradcheckResult gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps = 1e-6,
                              double atol = 1e-5, double rtol = 1e-3);

// Which nodes the checks reached, for the test that every node has a gradcheck
// (docs/autograd.md §8). Off by default; when on, a gradcheck or gradgradcheck
// that passes remembers the name of every node in the graph it checked.
void set_record_checked_nodes(bool on);
// The names remembered so far, sorted.
std::vector<std::string> checked_node_names();

}  // namespace ember::autograd
