#pragma once
#include <algorithm>

namespace ember {

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (n <= grain || detail::in_parallel_region()) return f(begin, end);
  const int threads = detail::threads_for_loop(get_num_threads());
  if (threads == 1) return f(begin, end);
  // One chunk per thread, as a static split would give; the pool decides
  // which thread runs which (Note [Work-sharing thread pool]).
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  const int64_t per = (n + chunks - 1) / chunks;
  detail::run_chunks(chunks, [&](int64_t c) {
    const int64_t b = begin + c * per, e = std::min(end, b + per);
    if (b < e) f(b, e);
  });
}

}  // namespace ember
