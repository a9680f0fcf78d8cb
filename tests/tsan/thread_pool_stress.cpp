// The work-sharing pool (core/thread_pool.h) under ThreadSanitizer: its claim
// word, done counter and futex waits are lock-free code whose correctness
// rests on memory ordering, which only a race detector checks. Built with
// -fsanitize=thread from the pool's own sources (TSan cannot share a binary
// with the ASan build of the library); a reported race fails the test.
// Loops at 2-4 threads, the thread count changed between them, with and
// without spinning (EMBER_SPIN_US), three threads calling at once, and chunks
// that throw.
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ember/core/parallel.h"

namespace {

// parallel_for over n indices; the number of indices not visited exactly once.
long miscounted(int64_t n) {
  std::vector<int> visits(static_cast<size_t>(n), 0);
  ember::parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) visits[static_cast<size_t>(i)] += 1;
  });
  long wrong = 0;
  for (int v : visits) wrong += v != 1;
  return wrong;
}

}  // namespace

int main() {
  long wrong = 0;
  for (int threads : {2, 3, 4, 2}) {
    ember::set_num_threads(threads);
    for (int rep = 0; rep < 1000; ++rep) wrong += miscounted(1000);
  }
  std::atomic<long> concurrent_wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 300; ++rep) concurrent_wrong += miscounted(500);
    });
  for (auto& t : callers) t.join();
  wrong += concurrent_wrong;
  for (int rep = 0; rep < 200; ++rep) {
    try {
      ember::detail::run_chunks(4, [](int64_t c) {
        if (c == 1) throw std::runtime_error("chunk 1");
      });
      ++wrong;  // the exception was lost
    } catch (const std::runtime_error&) {
    }
  }
  std::printf("thread_pool_stress: %ld wrong\n", wrong);
  return wrong == 0 ? 0 : 1;
}
