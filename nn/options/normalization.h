#pragma once
// Options of BatchNorm1d/2d, LayerNorm, GroupNorm and InstanceNorm1d/2d and of
// their functional forms, as libtorch's.
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/arg.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // running = (1 - momentum) * running + momentum * batch.
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

// InstanceNorm normalizes each (sample, channel) over its elements. Running
// statistics (track_running_stats) are not supported: setting it is an Error.
struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;

namespace functional {

struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
