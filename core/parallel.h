#pragma once
// Intra-op parallelism for CPU kernels (OpenMP underneath). Eigen's GEMM uses
// the same thread count.
#include <cstdint>
#include <functional>

namespace ember {

void set_num_threads(int n);
int get_num_threads();

namespace detail {
bool in_parallel_region();
}

// Runs f(begin, end) over [begin, end) split into chunks of at least `grain`
// elements, on up to get_num_threads() threads. Small ranges run inline.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f);

}  // namespace ember

#include "ember/core/parallel_inl.h"
