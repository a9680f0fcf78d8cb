// The work-sharing pool under parallel_for (Note [Work-sharing thread pool]):
// every index runs once, exceptions come back, nested and concurrent loops
// run inline, and a job completes without any worker (a forked child).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ember/core/parallel.h"

using namespace ember;

namespace {

// Restores the thread count a test changed.
struct ThreadCountGuard {
  int saved = get_num_threads();
  ~ThreadCountGuard() { set_num_threads(saved); }
};

// How many times parallel_for(0, n, grain) visits each index.
std::vector<int> visits(int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> count(static_cast<size_t>(n));
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) count[static_cast<size_t>(i)].fetch_add(1);
  });
  std::vector<int> out;
  for (auto& c : count) out.push_back(c.load());
  return out;
}

}  // namespace

TEST_CASE("parallel_for visits every index exactly once, for any thread count",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  // Down and up again: workers beyond the count sleep, then take part again.
  for (int threads : {1, 2, 3, 8, 2, 3}) {
    set_num_threads(threads);
    for (int64_t n : {1, 2, 7, 64, 1000, 100003}) {
      for (int64_t grain : {1, 16, 4096}) {
        INFO("threads " << threads << ", n " << n << ", grain " << grain);
        const std::vector<int> v = visits(n, grain);
        CHECK(std::count(v.begin(), v.end(), 1) == n);
      }
    }
  }
}

TEST_CASE("parallel_for splits into at most one chunk per thread, each at least a grain",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(3);
  std::atomic<int> chunks{0};
  std::atomic<int64_t> smallest{1 << 30}, covered{0};
  parallel_for(0, 1000, 100, [&](int64_t b, int64_t e) {
    chunks.fetch_add(1);
    covered.fetch_add(e - b);
    int64_t s = smallest.load();
    while (e - b < s && !smallest.compare_exchange_weak(s, e - b)) {
    }
  });
  // Three chunks on a quiet machine; fewer while it is busy (Note [Busy machine]).
  CHECK(chunks.load() >= 1);
  CHECK(chunks.load() <= 3);
  CHECK(smallest.load() >= 100);
  CHECK(covered.load() == 1000);
  for (int threads : {1, 2, 3, 64}) {
    const int now = detail::threads_for_loop(threads);
    CHECK(now >= 1);
    CHECK(now <= threads);
  }
}

TEST_CASE("run_chunks runs each of more chunks than a claim word counts exactly once",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  constexpr int64_t kChunks = 70001;  // past the 65535 of one claim word: grouped
  std::vector<std::atomic<int>> runs(kChunks);
  detail::run_chunks(kChunks, [&](int64_t c) { runs[static_cast<size_t>(c)].fetch_add(1); });
  int64_t once = 0;
  for (auto& r : runs) once += r.load() == 1;
  CHECK(once == kChunks);
}

TEST_CASE("an exception in a chunk reaches the caller after the other chunks ran",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(4);
  std::atomic<int> ran{0};
  auto throwing = [&] {
    detail::run_chunks(4, [&](int64_t c) {
      ran.fetch_add(1);
      if (c == 2) throw std::runtime_error("chunk 2 failed");
    });
  };
  CHECK_THROWS_WITH(throwing(), "chunk 2 failed");
  CHECK(ran.load() == 4);
  // The pool is usable afterwards.
  const std::vector<int> v = visits(10000, 1);
  CHECK(std::count(v.begin(), v.end(), 1) == 10000);
}

TEST_CASE("a loop inside a chunk runs inline on the chunk's thread", "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  CHECK_FALSE(detail::in_parallel_region());
  std::atomic<int> inner_inline{0}, inner_total{0}, outside{0};
  detail::run_chunks(2, [&](int64_t) {
    if (!detail::in_parallel_region()) outside.fetch_add(1);
    const std::thread::id self = std::this_thread::get_id();
    parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
      inner_total.fetch_add(static_cast<int>(e - b));
      if (std::this_thread::get_id() == self && b == 0 && e == 1000) inner_inline.fetch_add(1);
    });
  });
  CHECK(outside.load() == 0);
  CHECK(inner_total.load() == 2000);
  CHECK(inner_inline.load() == 2);  // each inner loop ran whole, on its own thread
  CHECK_FALSE(detail::in_parallel_region());
}

TEST_CASE("threads that call parallel_for at once all get their loops done",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) {
        const std::vector<int> v = visits(5000, 64);
        if (std::count(v.begin(), v.end(), 1) != 5000) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) t.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("a job completes without any worker: a forked child has none",
          "[parallel][thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  (void)visits(1000, 1);  // the parent's worker exists and has run
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Only this thread exists here; the pool still counts one worker. A hang
    // (waiting for it) ends in SIGALRM, which the parent reports.
    ::alarm(20);
    const std::vector<int> v = visits(100000, 1);
    ::_exit(std::count(v.begin(), v.end(), 1) == 100000 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
