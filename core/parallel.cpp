#include "ember/core/parallel.h"

#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "ember/core/error.h"

namespace ember {
namespace {

std::atomic<int> num_threads{0};  // 0: not set yet, take the default

// A positive count from the environment variable `name`, or 0.
int threads_from_env(const char* name) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  return (*end == '\0' && v >= 1 && v <= 4096) ? static_cast<int>(v) : 0;
}

// EMBER_NUM_THREADS, else OMP_NUM_THREADS (as libtorch), else the cores this
// process may run on (its affinity mask: a container or `taskset` limits it).
int default_threads() {
  if (int n = threads_from_env("EMBER_NUM_THREADS")) return n;
  if (int n = threads_from_env("OMP_NUM_THREADS")) return n;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK(n >= 1, "set_num_threads: expected a positive thread count, got ", n);
  detail::set_pool_workers(n - 1);
  num_threads.store(n);
}

int get_num_threads() {
  int n = num_threads.load(std::memory_order_relaxed);
  if (n == 0) [[unlikely]] {
    n = default_threads();
    detail::set_pool_workers(n - 1);
    int expected = 0;
    if (!num_threads.compare_exchange_strong(expected, n)) n = expected;
  }
  return n;
}

}  // namespace ember
