// A short tour of ember's tensor API: factories, views, broadcasting, autograd
// and printing. scripts/run.sh builds and runs it.
#include <ember/ember.h>

#include <iostream>

namespace {

void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }

}  // namespace

int main() {
  section("factories");
  std::cout << "zeros({2, 3}):\n" << ember::zeros({2, 3}) << "\n";
  std::cout << "arange(5):\n" << ember::arange(5) << "\n";
  std::cout << "linspace(0, 1, 5):\n" << ember::linspace(0, 1, 5) << "\n";
  std::cout << "eye(3, kFloat64):\n" << ember::eye(3, ember::kFloat64) << "\n";
  ember::manual_seed(1);  // the same seed gives the same numbers on every run and device
  std::cout << "rand({2, 3}):\n" << ember::rand({2, 3}) << "\n";

  section("views share storage");
  auto a = ember::arange(12, ember::kFloat).view({3, 4});  // (3, 4)
  auto column = a.select(1, 2);                            // (3,): a view of column 2
  auto at = a.t();                                         // (4, 3): strides swapped, no copy
  column.fill_(-1);                                        // writes through to a
  std::cout << "a after a.select(1, 2).fill_(-1):\n" << a << "\n";
  std::cout << "a.t() is contiguous: " << std::boolalpha << at.is_contiguous()
            << ", shares a's storage: " << at.is_alias_of(a) << "\n";
  std::cout << "every second column, a.slice(1, 0, 4, 2):\n" << a.slice(1, 0, 4, 2) << "\n";

  section("broadcasting");
  auto rows = ember::arange(3, ember::kFloat).view({3, 1});  // (3, 1)
  auto cols = ember::arange(4, ember::kFloat).view({1, 4});  // (1, 4)
  std::cout << "rows * 10 + cols, (3, 1) with (1, 4) -> (3, 4):\n" << rows * 10 + cols << "\n";

  section("autograd");
  // f(x, w) = sum(x * x * w), so df/dx = 2 x w and df/dw = x * x (w broadcast over rows).
  auto x = ember::tensor({{1.0, 2.0}, {3.0, 4.0}}).requires_grad_();  // (2, 2)
  auto w = ember::tensor({10.0, 100.0}).requires_grad_();             // (2,)
  auto f = (x * x * w).sum();
  f.backward();
  std::cout << "f = " << f.item<float>() << "\ndf/dx:\n" << x.grad() << "\ndf/dw:\n" << w.grad()
            << "\n";

  section("fitting y = 3x + 0.5 by gradient descent");
  auto xs = ember::linspace(-1, 1, 32);
  auto ys = xs * 3 + 0.5;
  auto slope = ember::zeros({}).requires_grad_();
  auto bias = ember::zeros({}).requires_grad_();
  const double lr = 0.5;
  for (int step = 1; step <= 40; ++step) {
    auto err = slope * xs + bias - ys;
    auto loss = (err * err).mean();
    loss.backward();
    {
      ember::NoGradGuard no_grad;  // the update itself is not part of the graph
      slope -= slope.grad() * lr;
      bias -= bias.grad() * lr;
    }
    slope.mutable_grad().zero_();
    bias.mutable_grad().zero_();
    if (step % 10 == 0) std::cout << "step " << step << ": loss " << loss.item<float>() << "\n";
  }
  std::cout << "slope " << slope.item<float>() << ", bias " << bias.item<float>() << "\n";

  section("mistakes raise ember::Error with a message");
  try {
    auto bad = ember::zeros({2, 3}) + ember::zeros({4});
  } catch (const ember::Error& e) {
    std::cout << e.what() << "\n";
  }
  return 0;
}
