#pragma once
#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ember {

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
#ifdef _OPENMP
  const int threads = get_num_threads();
  if (n > grain && threads > 1 && !detail::in_parallel_region()) {
    const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
      const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t per = (n + nt - 1) / nt;
      const int64_t b = begin + t * per, e = std::min(end, b + per);
      if (b < e) f(b, e);
    }
    return;
  }
#endif
  f(begin, end);
}

}  // namespace ember
