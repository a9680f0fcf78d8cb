#pragma once
// BatchNorm1d and BatchNorm2d, as torch::nn's. Parameters weight (ones) and
// bias (zeros) when affine; buffers running_mean (zeros), running_var (ones)
// and num_batches_tracked (int64, 0) when track_running_stats: PyTorch's names.
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

// The shared body; D names the layer (1 or 2) and fixes the input rank it takes.
template <int D>
class BatchNormImpl : public Module {
 public:
  explicit BatchNormImpl(int64_t num_features) : BatchNormImpl(BatchNormOptions(num_features)) {}
  explicit BatchNormImpl(const BatchNormOptions& options);

  // Training: batch statistics (and the running ones updated); eval: the
  // running statistics (batch ones without track_running_stats).
  // BatchNorm1d: x (N, C) or (N, C, L); BatchNorm2d: x (N, C, H, W).
  Tensor forward(const Tensor& input);
  // relu(forward(input)) as one op (ember::batch_norm_relu), without this
  // module's hooks: Sequential runs a hook-free BatchNorm -> ReLU pair
  // through it (Note [Fusion in Sequential]).
  Tensor forward_relu(const Tensor& input);
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  BatchNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;

 private:
  Tensor normalize(const Tensor& input, bool relu);
};

class BatchNorm1dImpl : public BatchNormImpl<1> {
 public:
  using BatchNormImpl<1>::BatchNormImpl;
};
EMBER_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public BatchNormImpl<2> {
 public:
  using BatchNormImpl<2>::BatchNormImpl;
};
EMBER_MODULE(BatchNorm2d);

extern template class BatchNormImpl<1>;
extern template class BatchNormImpl<2>;

}  // namespace ember::nn
