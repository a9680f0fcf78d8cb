#pragma once
// The sample model (design.md §8): three blocks of Conv2d(3x3, stride 2,
// padding 1) + BatchNorm2d + ReLU with 32, 64, 128 channels, then Flatten and
// Linear(128*4*4 -> 10). 32x32 inputs shrink 32 -> 16 -> 8 -> 4, and
// 28x28 ones 28 -> 14 -> 7 -> 4, so one model fits CIFAR-10 and Fashion-MNIST.
// Parameter names match the PyTorch script's: features.0.weight, ..., classifier.weight.
#include <ember/ember.h>

namespace train {

class NetImpl : public ember::nn::Module {
 public:
  explicit NetImpl(int64_t in_channels, int64_t num_classes = 10);
  ember::Tensor forward(const ember::Tensor& x);  // x: (N, in_channels, H, W) -> (N, 10)

  ember::nn::Sequential features{nullptr};
  ember::nn::Linear classifier{nullptr};
};
EMBER_MODULE(Net);

}  // namespace train
