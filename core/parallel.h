#pragma once
// Intra-op parallelism for CPU kernels, on ember's work-sharing pool
// (core/thread_pool.h; docs/threads.md says how to tune it). The default
// thread count is EMBER_NUM_THREADS, else OMP_NUM_THREADS, else the cores
// the process may run on.
#include <cstdint>

#include "ember/core/thread_pool.h"

namespace ember {

void set_num_threads(int n);
int get_num_threads();

// Runs f(begin, end) over [begin, end) split into chunks of at least `grain`
// elements, on up to get_num_threads() threads. Small ranges run inline.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f);

}  // namespace ember

#include "ember/core/parallel_inl.h"
