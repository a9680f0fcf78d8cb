#pragma once
// Note [Work-sharing thread pool]
// ember's CPU kernels split their work into a few chunks (parallel_for, the
// GEMM's blocks) and run them on this pool. The calling thread is one of the
// workers: it publishes the job, then claims chunks itself, and it waits only
// for chunks that another thread has claimed and not finished. A chunk that no
// worker has claimed yet is never waited for: the caller runs it. So a worker
// that the OS has descheduled (the machine is busy with another program)
// costs nothing but its share of the work, where a barrier-bound split
// (OpenMP's static schedule) waits for it, spinning, and collapses the step
// ~30x (docs/threads.md has the measurements).
//
// Waiting is bounded spinning, then sleeping on a futex (std::atomic::wait):
// spinning keeps the gap between two loops of a step free of wake-up latency;
// sleeping gives the core back when there is nothing to do or when a partner
// has been descheduled. The spin bound is EMBER_SPIN_US (microseconds,
// default kDefaultSpinMicros; 0 never spins). While the machine is busy
// (a spinning thread gets preempted), nobody spins and loops use fewer
// threads (Note [Busy machine] in thread_pool.cpp).
//
// One job runs at a time: a second thread that asks while the pool is busy,
// and a chunk that asks from inside a job, run their loop inline. Workers are
// never joined (the pool lives until the process ends), so a forked child,
// which has no workers, still completes every job on its calling thread.
#include <cstdint>

namespace ember::detail {

// A non-owning reference to a callable void(int64_t chunk); it must outlive
// the run() it is passed to. (std::function would allocate per call.)
class ChunkFn {
 public:
  template <typename F>
  ChunkFn(const F& f)  // NOLINT: implicit, as a function_ref
      : object_(&f), call_([](const void* o, int64_t c) { (*static_cast<const F*>(o))(c); }) {}
  void operator()(int64_t chunk) const { call_(object_, chunk); }

 private:
  const void* object_;
  void (*call_)(const void*, int64_t);
};

inline constexpr int kDefaultSpinMicros = 1000;

// The spin bound of this process: EMBER_SPIN_US when set to a number >= 0,
// else kDefaultSpinMicros. Read once.
int spin_micros();

// Runs fn(c) for every c in [0, chunks), on the calling thread and the pool's
// workers; returns when every chunk has run. The first exception a chunk
// throws is rethrown here, after the other chunks have finished. Inside a
// chunk, or while another thread's job holds the pool, the chunks run inline,
// in order. The caller decides the parallelism by the number of chunks.
void run_chunks(int64_t chunks, ChunkFn fn);

// The pool's worker threads besides the caller: set_num_threads(n) sets n - 1.
// Workers are started on demand and never stopped; those beyond the count
// sleep.
void set_pool_workers(int workers);

// How many of `threads` threads a loop should use now: all of them, or fewer
// while the machine is busy (Note [Busy machine] in thread_pool.cpp).
int threads_for_loop(int threads);

// Whether this thread is running a chunk (a loop inside one runs inline).
bool in_parallel_region();

}  // namespace ember::detail
