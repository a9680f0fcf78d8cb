#pragma once
// Options of cosine_similarity and pairwise_distance (nn/functional/distance.h)
// and their modules, as libtorch's.
#include <cstdint>

#include "ember/nn/options/arg.h"

namespace ember::nn {

// <x1 / max(||x1||, eps), x2 / max(||x2||, eps)> along dim.
struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

// ||x1 - x2 + eps||_p along the last dim.
struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
