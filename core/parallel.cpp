#include "ember/core/parallel.h"

#include <Eigen/Core>
#include <atomic>
#include <thread>

#include "ember/core/error.h"

namespace ember {
namespace {
std::atomic<int> num_threads{0};  // 0: not set yet, use the core count
}

void set_num_threads(int n) {
  EMBER_CHECK(n >= 1, "set_num_threads: expected a positive thread count, got ", n);
  num_threads.store(n);
  Eigen::setNbThreads(n);
}

int get_num_threads() {
  int n = num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    num_threads.store(n);
    Eigen::setNbThreads(n);
  }
  return n;
}

namespace detail {
bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}
}  // namespace detail

}  // namespace ember
