// The README's example, built by tests/consumer/run_consumer.cmake against an
// installed ember and through add_subdirectory. Exits 0 only if the loss and
// the gradients are the values worked out by hand below.
#include <ember/ember.h>
#ifdef CONSUMER_DISTRIBUTED
#include <ember/distributed/distributed.h>
#endif

#include <iostream>

int main() {
  auto x = ember::tensor({{1.0, 2.0}, {3.0, 4.0}});      // (2, 2), float32
  auto w = ember::tensor({0.5, -1.0}).requires_grad_();  // (2,): broadcast over the rows of x
  auto b = ember::tensor(0.5).requires_grad_();          // a 0-dim tensor
  auto y = x * w + b;                                    // [[1, -1.5], [2, -3.5]]
  auto loss = (y * y).sum();                             // 1 + 2.25 + 4 + 12.25 = 19.5
  loss.backward();                                       // dloss/dy = 2y

  std::cout << "loss = " << loss.item<float>() << "\n";
  std::cout << "dloss/dw = " << w.grad() << "\n";  // column sums of 2y * x: [14, -34]
  std::cout << "dloss/db = " << b.grad() << "\n";  // sum of 2y: -4

  const bool ok = loss.item<float>() == 19.5f && w.grad()[0].item<float>() == 14.0f &&
                  w.grad()[1].item<float>() == -34.0f && b.grad().item<float>() == -4.0f;
#ifdef CONSUMER_DISTRIBUTED
  std::cout << "distributed initialized: " << ember::distributed::is_initialized() << "\n";
#endif
  std::cout << (ok ? "consumer: OK" : "consumer: WRONG VALUES") << "\n";
  return ok ? 0 : 1;
}
