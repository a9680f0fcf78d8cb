// The work-sharing pool of Note [Work-sharing thread pool].
#include "ember/core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>


#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EMBER_CPU_RELAX() _mm_pause()
#else
#define EMBER_CPU_RELAX() std::this_thread::yield()
#endif

namespace ember::detail {
namespace {

thread_local bool running_chunk = false;

// Sets running_chunk for the scope of a chunk, so loops inside it run inline.
class ChunkScope {
 public:
  ChunkScope() : outer_(running_chunk) { running_chunk = true; }
  ~ChunkScope() { running_chunk = outer_; }

 private:
  bool outer_;
};

constexpr auto kNoChunks = [](int64_t) {};

using Clock = std::chrono::steady_clock;

// Note [Busy machine]
// A long spin keeps a quiet machine's workers awake between the loops of a
// step (a sleep and a wake-up cost tens of microseconds, many times a step).
// On a busy machine spinning burns the CPU share that partners need, and
// threads that outnumber the cores left to them trade the CPU back and forth
// at every loop: on 2 cores with one busy process in another session, the
// sample model's step took 19 ms on 2 threads and 13 ms on 1 (quiet: 7 and
// 13 ms). So the pool watches for the sign of a busy machine, a thread that
// should have been running and was not:
// - a worker that takes up a job more than kLateWorker after it was published
//   (awake, it takes it up within microseconds; asleep, within tens);
// - a spinner whose two clock reads, a few hundred nanoseconds apart, come
//   back more than kPreemptedGap apart: it was preempted.
// Two sightings within kConfirm raise the busy level by one (one alone may be
// a blip: a kernel thread, a page fault); the level decays by one per
// kBusyHold without a sighting. At level L a loop uses threads >> L threads
// (at least 1) and nobody spins. docs/threads.md has the measurements.
constexpr auto kLateWorker = std::chrono::microseconds(500);
constexpr auto kPreemptedGap = std::chrono::microseconds(100);
constexpr auto kConfirm = std::chrono::milliseconds(20);
constexpr auto kBusyHold = std::chrono::milliseconds(200);
constexpr int kMaxBusyLevel = 16;

std::atomic<Clock::rep> last_sighting{0};  // Clock ticks of the last sighting
std::atomic<Clock::rep> busy_seen{0};  // Clock ticks of the last confirmed one
std::atomic<int> busy_level_seen{0};   // the level it set

int busy_level(Clock::time_point now) {
  const int seen = busy_level_seen.load(std::memory_order_relaxed);
  if (seen == 0) return 0;
  const auto since = now.time_since_epoch().count() - busy_seen.load(std::memory_order_relaxed);
  const auto holds = since / std::chrono::duration_cast<Clock::duration>(kBusyHold).count();
  return holds >= seen ? 0 : seen - static_cast<int>(holds);
}

void saw_preemption(Clock::time_point now) {
  // One sighting alone may be a blip (a kernel thread, a page fault's I/O).
  const Clock::rep at = now.time_since_epoch().count();
  const Clock::rep previous = last_sighting.exchange(at, std::memory_order_relaxed);
  if (at - previous > std::chrono::duration_cast<Clock::duration>(kConfirm).count()) return;
  busy_level_seen.store(std::min(kMaxBusyLevel, busy_level(now) + 1), std::memory_order_relaxed);
  busy_seen.store(now.time_since_epoch().count(), std::memory_order_relaxed);
}

// Spins until pred() holds or the spin bound passes; true if pred() held.
// No spinning while the machine is busy (Note [Busy machine]).
template <typename Pred>
bool spin_until(const Pred& pred) {
  if (spin_micros() == 0) return pred();
  const Clock::time_point start = Clock::now();
  if (busy_level(start) > 0) return pred();
  const Clock::duration budget = std::chrono::microseconds(spin_micros());
  for (Clock::time_point last = start;;) {
    for (int i = 0; i < 32; ++i) {
      if (pred()) return true;
      EMBER_CPU_RELAX();
    }
    const Clock::time_point now = Clock::now();
    if (now - last > kPreemptedGap) {
      saw_preemption(now);
      return pred();
    }
    if (now - start >= budget) return pred();
    last = now;
  }
}

// The claim word: which job (its epoch) and its unclaimed chunks [front,
// back), in one atomic so that a worker still holding an old epoch can never
// claim a chunk of a newer job (Note [Work-sharing thread pool]). The caller
// claims from the front, workers from the back: with two threads the caller
// runs chunk 0 and the worker chunk 1 at every loop, so each keeps the same
// part of the data in its core's cache from one loop to the next.
struct Claims {
  static constexpr uint64_t kMaxChunks = 0xFFFF;
  static uint64_t pack(uint32_t epoch, uint64_t total) { return uint64_t(epoch) << 32 | total; }
  static uint32_t epoch(uint64_t w) { return static_cast<uint32_t>(w >> 32); }
  static uint64_t front(uint64_t w) { return (w >> 16) & kMaxChunks; }
  static uint64_t back(uint64_t w) { return w & kMaxChunks; }
  static constexpr uint64_t kOneFront = uint64_t(1) << 16;
};

class ThreadPool {
 public:
  // Makes sure `workers` threads exist and that only they take part in jobs.
  void set_workers(int workers) {
    std::lock_guard<std::mutex> lock(resize_);
    while (static_cast<int>(spawned_) < workers) {
      std::thread([this, index = spawned_] { worker_loop(index); }).detach();
      ++spawned_;
    }
    active_.store(workers, std::memory_order_release);
    active_.notify_all();
  }

  void run(int64_t chunks, ChunkFn fn) {
    if (busy_.test_and_set(std::memory_order_acquire)) return run_inline(chunks, fn);
    publish(chunks, fn);
    work(epoch_.load(std::memory_order_relaxed), /*from_front=*/true);
    // Every chunk is claimed; wait for the ones other threads still run.
    const auto total = static_cast<uint32_t>(chunks);
    if (!spin_until([&] { return done_.load(std::memory_order_acquire) == total; })) {
      caller_waiting_.store(true, std::memory_order_seq_cst);
      for (uint32_t d; (d = done_.load(std::memory_order_seq_cst)) != total;) done_.wait(d);
    }
    std::exception_ptr error = error_;
    busy_.clear(std::memory_order_release);
    if (error) std::rethrow_exception(error);
  }

 private:
  static void run_inline(int64_t chunks, ChunkFn fn) {
    ChunkScope scope;
    for (int64_t c = 0; c < chunks; ++c) fn(c);
  }

  void publish(int64_t chunks, ChunkFn fn) {
    fn_ = fn;
    total_ = static_cast<uint32_t>(chunks);
    error_ = nullptr;
    failed_.store(false, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    caller_waiting_.store(false, std::memory_order_relaxed);
    published_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    const uint32_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
    claims_.store(Claims::pack(epoch, static_cast<uint64_t>(chunks)), std::memory_order_release);
    epoch_.store(epoch, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) epoch_.notify_all();
  }

  // Claims a chunk of job `epoch`, the first or the last unclaimed one; false
  // when that job has none left (or is over).
  bool claim(uint32_t epoch, bool from_front, int64_t& chunk) {
    uint64_t w = claims_.load(std::memory_order_acquire);
    for (;;) {
      if (Claims::epoch(w) != epoch || Claims::front(w) >= Claims::back(w)) return false;
      const uint64_t next = from_front ? w + Claims::kOneFront : w - 1;
      if (claims_.compare_exchange_weak(w, next, std::memory_order_acq_rel)) {
        chunk = static_cast<int64_t>(from_front ? Claims::front(w) : Claims::back(w) - 1);
        return true;
      }
    }
  }

  // Runs chunks of job `epoch` until none is left. The job's fields are read
  // only after a successful claim: the job cannot end while one of its chunks
  // is claimed and unfinished, so they are still this job's.
  void work(uint32_t epoch, bool from_front) {
    ChunkScope scope;
    for (int64_t chunk; claim(epoch, from_front, chunk);) {
      // Read before the chunk counts as done: after that the job may end and
      // the caller publish the next one.
      const uint32_t total = total_;
      try {
        fn_(chunk);
      } catch (...) {
        if (!failed_.exchange(true)) error_ = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_seq_cst) + 1 == total &&
          caller_waiting_.load(std::memory_order_seq_cst))
        done_.notify_all();
    }
  }

  [[noreturn]] void worker_loop(int index) {
    uint32_t seen = epoch_.load(std::memory_order_acquire);
    for (;;) {
      if (!spin_until([&] { return epoch_.load(std::memory_order_acquire) != seen; })) {
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        while (epoch_.load(std::memory_order_seq_cst) == seen) epoch_.wait(seen);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      seen = epoch_.load(std::memory_order_acquire);
      if (index >= active_.load(std::memory_order_acquire)) {
        // Beyond the thread count: sleep until set_workers() changes it, then
        // wait for a job published after that.
        for (int a; index >= (a = active_.load(std::memory_order_acquire));) active_.wait(a);
        seen = epoch_.load(std::memory_order_acquire);
        continue;
      }
      const Clock::time_point now = Clock::now();
      if (now.time_since_epoch().count() - published_.load(std::memory_order_relaxed) >
          std::chrono::duration_cast<Clock::duration>(kLateWorker).count())
        saw_preemption(now);
      work(seen, /*from_front=*/false);
    }
  }

  std::mutex resize_;
  int spawned_ = 0;
  std::atomic<int> active_{0};

  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;  // a job is running
  std::atomic<uint32_t> epoch_{0};            // bumped per job; idle workers wait on it
  std::atomic<int> sleepers_{0};              // workers asleep on epoch_
  std::atomic<uint64_t> claims_{0};           // Claims of the current job
  std::atomic<uint32_t> done_{0};             // chunks of the current job finished
  std::atomic<bool> caller_waiting_{false};   // the caller sleeps on done_
  std::atomic<bool> failed_{false};
  std::atomic<Clock::rep> published_{0};      // when the current job was published
  ChunkFn fn_{kNoChunks};  // run() sets it before any chunk can be claimed
  uint32_t total_ = 0;     // the current job's chunks
  std::exception_ptr error_;
};

// Never destroyed: workers are never joined (Note [Work-sharing thread pool]).
ThreadPool& pool() {
  static ThreadPool* p = new ThreadPool;
  return *p;
}

}  // namespace

int spin_micros() {
  static const int micros = [] {
    const char* env = std::getenv("EMBER_SPIN_US");
    if (env == nullptr || *env == '\0') return kDefaultSpinMicros;
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    return (*end == '\0' && v >= 0 && v <= 1000000) ? static_cast<int>(v) : kDefaultSpinMicros;
  }();
  return micros;
}

bool in_parallel_region() { return running_chunk; }

int threads_for_loop(int threads) {
  const int level = busy_level(Clock::now());
  return level == 0 ? threads : std::max(1, threads >> level);
}

void set_pool_workers(int workers) { pool().set_workers(workers); }

void run_chunks(int64_t chunks, ChunkFn fn) {
  if (chunks <= 0) return;
  if (chunks == 1 || running_chunk) {
    ChunkScope scope;
    for (int64_t c = 0; c < chunks; ++c) fn(c);
    return;
  }
  if (static_cast<uint64_t>(chunks) <= Claims::kMaxChunks) return pool().run(chunks, fn);
  // More chunks than a claim word counts: each pool chunk runs a run of them.
  const int64_t groups = static_cast<int64_t>(Claims::kMaxChunks);
  pool().run(groups, [&](int64_t g) {
    for (int64_t c = chunks * g / groups, e = chunks * (g + 1) / groups; c < e; ++c) fn(c);
  });
}

}  // namespace ember::detail
