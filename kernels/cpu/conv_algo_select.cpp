#include "ember/kernels/cpu/conv_algo_select.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <vector>

#include "ember/core/backends.h"
#include "ember/kernels/cpu/conv_algo_cache.h"

namespace ember::cpu {
namespace {

double time_ms(ConvAlgo algo, const std::function<void(ConvAlgo)>& run) {
  const auto start = std::chrono::steady_clock::now();
  run(algo);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// A candidate whose warm-up is this many times slower than the best median so
// far cannot win: its warm-up time is recorded without repetitions.
constexpr double kHopeless = 3.0;

// One warm-up run (first touch of buffers, GEMM packing), then the median of
// a few timed runs; fewer for slow passes, whose timings vary less and whose
// repetitions would make the first step slow.
double median_time_ms(ConvAlgo algo, const std::function<void(ConvAlgo)>& run, double best_ms) {
  const double warm_up = time_ms(algo, run);
  if (warm_up > kHopeless * best_ms) return warm_up;
  const int reps = warm_up > 50 ? 1 : warm_up > 5 ? 3 : 5;
  std::vector<double> times(reps);
  for (double& t : times) t = time_ms(algo, run);
  std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
  return times[reps / 2];
}

// The search of a cache miss: every algorithm that supports p, timed.
std::vector<bench::AlgoResult> time_conv_algos(ConvPass pass, const ConvParams& p,
                                               const std::function<void(ConvAlgo)>& run) {
  // The specialised algorithms first: they apply only where they tend to be
  // fast, so the general one is then timed against a good bound.
  std::vector<ConvAlgo> candidates;
  for (int a = kNumConvAlgos - 1; a >= 0; --a)
    if (conv_algo_supports(static_cast<ConvAlgo>(a), pass, p)) candidates.push_back(ConvAlgo(a));
  // One candidate: nothing to compare, so nothing to run.
  if (candidates.size() == 1) return {{static_cast<int>(candidates[0]), 0, 0, 0.0}};
  std::vector<bench::AlgoResult> results;
  double best_ms = std::numeric_limits<double>::infinity();
  std::exception_ptr out_of_memory;
  for (ConvAlgo algo : candidates) {
    try {
      const double ms = median_time_ms(algo, run, best_ms);
      results.push_back({static_cast<int>(algo), 0, 0, ms});
      best_ms = std::min(best_ms, ms);
    } catch (const std::bad_alloc&) {
      out_of_memory = std::current_exception();  // this one cannot run; the others may
    }
  }
  if (results.empty() && out_of_memory) std::rethrow_exception(out_of_memory);
  return results;
}

}  // namespace

// With benchmark mode on, the first call for a (pass, key) times the
// candidates and later calls reuse the winner (Note [Benchmark cache]).
// Deterministic mode keeps the heuristic: timings differ from run to run,
// and so would the algorithm and the rounding of the results.
ConvAlgo choose_conv_algo(ConvPass pass, const ConvParams& p,
                          const std::function<void(ConvAlgo)>& run) {
  if (!backends::cpu::benchmark() || backends::cpu::deterministic())
    return conv_heuristic_algo(pass, p);
  const auto entry =
      conv_benchmark_caches()
          .cache(static_cast<size_t>(pass))
          .get_or_find(conv_benchmark_key(p), [&] { return time_conv_algos(pass, p, run); });
  const int algo = entry->choice().algo;
  // An entry loaded from a file written by another build may name an
  // algorithm this one does not have or no longer allows for p.
  if (algo < 0 || algo >= kNumConvAlgos ||
      !conv_algo_supports(static_cast<ConvAlgo>(algo), pass, p))
    return conv_heuristic_algo(pass, p);
  return static_cast<ConvAlgo>(algo);
}

}  // namespace ember::cpu
