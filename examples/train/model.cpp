#include "model.h"

namespace train {

namespace nn = ember::nn;

namespace {
// Conv 3x3 stride 2 + BN + ReLU; the conv has no bias since BN removes it.
void add_block(nn::Sequential& seq, int64_t in, int64_t out) {
  seq->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(2).padding(1).bias(false)));
  seq->push_back(nn::BatchNorm2d(out));
  seq->push_back(nn::ReLU());
}
}  // namespace

NetImpl::NetImpl(int64_t in_channels, int64_t num_classes) : Module("Net") {
  nn::Sequential seq;
  add_block(seq, in_channels, 32);
  add_block(seq, 32, 64);
  add_block(seq, 64, 128);
  seq->push_back(nn::Flatten());
  features = register_module("features", seq);
  classifier = register_module("classifier", nn::Linear(128 * 4 * 4, num_classes));
}

ember::Tensor NetImpl::forward(const ember::Tensor& x) { return classifier(features(x)); }

}  // namespace train
