// The work-sharing pool of Note [Work-sharing thread pool].
#include "ember/core/thread_pool.h"

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

// Spins until pred() holds or the spin bound passes; true if pred() held.
template <typename Pred>
bool spin_until(const Pred& pred) {
  const int micros = spin_micros();
  if (micros == 0) return pred();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (pred()) return true;
      EMBER_CPU_RELAX();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

// The claim word: which job (its epoch), how many chunks it has and the next
// unclaimed one, in one atomic so that a worker still holding an old epoch can
// never claim a chunk of a newer job (Note [Work-sharing thread pool]).
struct Claims {
  static constexpr uint64_t kMaxChunks = 0xFFFF;
  static uint64_t pack(uint32_t epoch, uint64_t total) { return uint64_t(epoch) << 32 | total << 16; }
  static uint32_t epoch(uint64_t w) { return static_cast<uint32_t>(w >> 32); }
  static uint64_t total(uint64_t w) { return (w >> 16) & kMaxChunks; }
  static uint64_t next(uint64_t w) { return w & kMaxChunks; }
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
    work(epoch_.load(std::memory_order_relaxed));
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
    error_ = nullptr;
    failed_.store(false, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    caller_waiting_.store(false, std::memory_order_relaxed);
    const uint32_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
    claims_.store(Claims::pack(epoch, static_cast<uint64_t>(chunks)), std::memory_order_release);
    epoch_.store(epoch, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) epoch_.notify_all();
  }

  // Claims the next chunk of job `epoch`; false when that job has none left
  // (or is over).
  bool claim(uint32_t epoch, int64_t& chunk) {
    uint64_t w = claims_.load(std::memory_order_acquire);
    for (;;) {
      if (Claims::epoch(w) != epoch || Claims::next(w) >= Claims::total(w)) return false;
      if (claims_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) {
        chunk = static_cast<int64_t>(Claims::next(w));
        return true;
      }
    }
  }

  // Runs chunks of job `epoch` until none is left. The job's fields are read
  // only after a successful claim: the job cannot end while one of its chunks
  // is claimed and unfinished, so they are still this job's.
  void work(uint32_t epoch) {
    ChunkScope scope;
    for (int64_t chunk; claim(epoch, chunk);) {
      try {
        fn_(chunk);
      } catch (...) {
        if (!failed_.exchange(true)) error_ = std::current_exception();
      }
      const uint32_t total = static_cast<uint32_t>(Claims::total(claims_.load()));
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
      // A worker beyond the thread count sleeps until set_workers() changes it.
      for (int a; index >= (a = active_.load(std::memory_order_acquire));) active_.wait(a);
      work(seen);
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
  ChunkFn fn_ = [](int64_t) {};
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
