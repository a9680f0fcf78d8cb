#include "ember/kernels/cpu/conv_algo_cache.h"

#include "ember/core/parallel.h"

namespace ember::cpu {

bench::BenchmarkCacheSet& conv_benchmark_caches() {
  // Never destroyed, as cudnn_conv_caches(): the save at exit may run after
  // static destructors.
  static auto* set = new bench::BenchmarkCacheSet(
      "cpu_conv", kConvKeyFormat,
      {conv_pass_name(ConvPass::kForward), conv_pass_name(ConvPass::kBackwardData),
       conv_pass_name(ConvPass::kBackwardWeight)},
      [](size_t, int algo) -> std::string {
        return algo >= 0 && algo < kNumConvAlgos ? conv_algo_name(static_cast<ConvAlgo>(algo))
                                                 : "algo" + std::to_string(algo);
      },
      "EMBER_CPU_CONV_CACHE", bench::cpu_isa_tag(),
      [](size_t, const bench::AlgoResult& r) { return r.algo >= 0 && r.algo < kNumConvAlgos; });
  return *set;
}

std::string conv_benchmark_key(const ConvParams& p) {
  return "threads=" + std::to_string(get_num_threads()) + "|" + p.key();
}

}  // namespace ember::cpu
