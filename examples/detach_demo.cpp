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

// On CUDA, a training step waits for the device only where a value reaches
// the host: item() is one synchronization (ember::cuda::sync_count()).
void count_item_syncs(nn::Conv2d& model, nn::Sequential& extractor, const Tensor& x,
                      const Tensor& target) {
  if (!ember::cuda::is_available()) {
    std::printf("no CUDA device here: on one, this demo counts the device synchronizations of a "
                "training step with and without item()\n");
    return;
  }
  const ember::Device gpu(ember::kCUDA);
  model->to(gpu);
  extractor->to(gpu);
  const Tensor xg = x.to(gpu), target_features = extractor(target.to(gpu)).detach();
  ember::optim::SGD optimizer(model->parameters(), ember::optim::SGDOptions(0.01));
  auto step = [&](bool read_loss) {
    const uint64_t before = ember::cuda::sync_count();
    const Tensor loss = F::mse_loss(extractor(model(xg)), target_features);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    if (read_loss) (void)loss.item<double>();
    return ember::cuda::sync_count() - before;
  };
  step(false);  // the first step finds the conv algorithms
  const uint64_t quiet = step(false), reading = step(true);
  std::printf("on CUDA, device synchronizations per training step: %llu without item(), %llu "
              "with loss.item()\n",
              static_cast<unsigned long long>(quiet), static_cast<unsigned long long>(reading));
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
  count_item_syncs(model, extractor, x, target);
  return 0;
}
