#pragma once
// Which CPU conv algorithm runs a pass of a problem. With benchmark mode off,
// a fixed heuristic; on, the first call for a key times every candidate
// (`run` executes the pass once with the given algorithm) and caches the
// fastest in the shared benchmark cache (kernels/common/benchmark_cache.h).
#include <functional>

#include "ember/kernels/cpu/conv_algo.h"

namespace ember::cpu {

// Whether `algo` can run `pass` of p.
bool conv_algo_supports(ConvAlgo algo, ConvPass pass, const ConvParams& p);
ConvAlgo conv_heuristic_algo(ConvPass pass, const ConvParams& p);
ConvAlgo choose_conv_algo(ConvPass pass, const ConvParams& p,
                          const std::function<void(ConvAlgo)>& run);

}  // namespace ember::cpu
