#pragma once
// Timing helpers of the benchmark programs (header-only: each
// benchmarks/<name>.cpp is a program of its own).
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace bench_timing {

// The median of `times` (not empty): the upper one of an even count.
inline double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Median host wall time of `reps` calls of f, in seconds.
template <typename F>
double median_seconds(int reps, const F& f) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    times.push_back(std::chrono::duration<double>(elapsed).count());
  }
  return median(std::move(times));
}

}  // namespace bench_timing
