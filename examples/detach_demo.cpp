// detach_demo: what detach() and NoGradGuard save, shown on a perceptual-style
// loss. A frozen feature extractor compares the features of a model's output
// with those of a target image:
//
//   loss = mse(features(model(x)), features(target))
//
// Only `model` is trained. The graph behind `loss` can still hold a branch for
// the target's features (and, while the extractor's weights require grad, a
// path to them), with the activations those nodes save. Three ways to build
// the loss, and the graph each leaves behind:
//   1. naive: the extractor's weights require grad, the target branch is recorded;
//   2. features(target).detach(): the target branch ends at the detach, but
//      the extractor's weights still get AccumulateGrad nodes and gradients;
//   3. frozen extractor (requires_grad_(false) on its parameters) and the
//      target's features computed under NoGradGuard: only what `model` needs
//      is recorded. (Once the extractor is frozen its target branch records
//      nothing anyway; NoGradGuard also makes that intent explicit.)
// The gradient reaching `model` is the same in all three.
#include <cstdio>
#include <string>

#include <ember/ember.h>

namespace nn = ember::nn;
namespace F = ember::nn::functional;
using ember::Tensor;

namespace {

nn::Sequential make_extractor() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1)), nn::ReLU(),
                        nn::Conv2d(nn::Conv2dOptions(16, 32, 3).stride(2).padding(1)),
                        nn::ReLU());
}

void report(const char* how, const Tensor& loss, const Tensor& model_grad) {
  const ember::autograd::GraphStats s = ember::autograd::graph_stats(loss);
  std::printf("%-44s %3zu nodes, %2zu saved tensors, %8.1f KiB saved | loss %.6f, |grad| %.6f\n",
              how, s.nodes, s.saved_tensors, double(s.saved_bytes) / 1024.0, loss.item<double>(),
              model_grad.defined() ? model_grad.norm().item<double>() : 0.0);
}

}  // namespace

int main() {
  ember::manual_seed(0);
  nn::Conv2d model(nn::Conv2dOptions(3, 3, 3).padding(1));  // the model being trained
  nn::Sequential extractor = make_extractor();             // stands in for a pretrained net
  const Tensor x = ember::rand({8, 3, 32, 32});
  const Tensor target = ember::rand({8, 3, 32, 32});

  std::printf("perceptual loss: mse(features(model(x)), features(target)), batch 8, 3x32x32\n\n");

  auto grad_of_model = [&](const Tensor& loss) {
    return ember::autograd::grad({loss}, {model->weight}, {}, /*retain_graph=*/true)[0];
  };

  {  // 1. naive
    const Tensor loss = F::mse_loss(extractor(model(x)), extractor(target));
    report("1. naive (extractor trainable, no detach)", loss, grad_of_model(loss));
  }
  {  // 2. detach the target's features
    const Tensor loss = F::mse_loss(extractor(model(x)), extractor(target).detach());
    report("2. target features .detach()", loss, grad_of_model(loss));
  }
  for (Tensor& p : extractor->parameters()) p.requires_grad_(false);
  {  // 3. NoGradGuard around the target's branch
    Tensor target_features;
    {
      ember::NoGradGuard no_grad;
      target_features = extractor(target);
    }
    const Tensor loss = F::mse_loss(extractor(model(x)), target_features);
    report("3. frozen extractor + NoGradGuard target", loss, grad_of_model(loss));
  }
  // A full step: backward frees what the graph saved.
  const Tensor loss = F::mse_loss(extractor(model(x)), extractor(target).detach());
  loss.backward();
  std::printf("\nafter backward() without retain_graph: %zu bytes still saved\n",
              ember::autograd::graph_stats(loss).saved_bytes);
  std::printf("item() syncs with the device on CUDA; %s\n",
              ember::cuda::is_available()
                  ? "the CUDA backend's tensor ops are not built yet (issue #4)"
                  : "no CUDA device here, so nothing to count");
  return 0;
}
