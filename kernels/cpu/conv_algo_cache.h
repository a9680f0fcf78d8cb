#pragma once
// The CPU conv algorithm caches (Note [Benchmark cache] in
// kernels/common/benchmark_cache.h): one per ConvPass, persisted through
// EMBER_CPU_CONV_CACHE. choose_conv_algo fills them; backends::cpu reads them.
#include <string>

#include "ember/kernels/common/benchmark_cache.h"
#include "ember/kernels/cpu/conv_algo.h"

namespace ember::cpu {

// Bumped when conv_benchmark_key or ConvParams::key changes meaning.
inline constexpr int kConvKeyFormat = 1;

bench::BenchmarkCacheSet& conv_benchmark_caches();

// ConvParams::key() plus the settings that change the timings: the thread count.
std::string conv_benchmark_key(const ConvParams& p);

}  // namespace ember::cpu
