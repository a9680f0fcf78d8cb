// gradient_penalty: the critic step of WGAN-GP (Gulrajani et al., 2017) on
// 2-D data. The critic D is pushed to be 1-Lipschitz by penalizing the norm
// of its input gradient at points between real and fake samples:
//
//   x_hat   = e * real + (1 - e) * fake,        e ~ U(0, 1) per sample
//   penalty = lambda * mean((|dD/dx (x_hat)| - 1)^2)
//   loss    = mean(D(fake)) - mean(D(real)) + penalty
//
// dD/dx comes from autograd::grad(..., create_graph=true): a gradient that is
// itself a differentiable graph, so loss.backward() differentiates through it
// (a second-order gradient) into the critic's weights. The printout shows the
// penalty falling as the critic's gradient norm approaches 1.
#include <cstdio>

#include <ember/ember.h>

namespace nn = ember::nn;
using ember::Tensor;

namespace {

// Real data: points on a circle of radius 2 (a Gaussian direction, scaled to
// length 2), with a little noise.
Tensor sample_real(int64_t n) {
  const Tensor v = ember::randn({n, 2});
  return v / (v * v).sum(1, /*keepdim=*/true).sqrt() * 2.0 + ember::randn({n, 2}) * 0.05;
}

// Fake data: a fixed "generator", a blob at the origin stretched along x.
Tensor sample_fake(int64_t n) { return ember::randn({n, 2}) * ember::tensor({1.0f, 0.3f}); }

}  // namespace

int main() {
  ember::manual_seed(0);
  nn::Sequential critic(nn::Linear(2, 64), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
                        nn::Linear(64, 64), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
                        nn::Linear(64, 1));
  ember::optim::Adam adam(critic->parameters(), ember::optim::AdamOptions(1e-3).betas({0.5, 0.9}));
  const double lambda = 10.0;
  const int64_t batch = 256;

  std::printf("WGAN-GP critic on 2-D data (real: a ring, fake: a blob), lambda %.0f, batch %lld\n",
              lambda, (long long)batch);
  std::printf("%6s %12s %12s %14s\n", "step", "wasserstein", "penalty", "mean |dD/dx|");
  for (int step = 0; step <= 400; ++step) {
    const Tensor real = sample_real(batch), fake = sample_fake(batch);
    const Tensor e = ember::rand({batch, 1});
    const Tensor x_hat = (e * real + (1.0 - e) * fake).requires_grad_();
    const Tensor d_hat = critic(x_hat);
    // create_graph: the gradient is a graph too, so the penalty can be differentiated.
    const Tensor g = ember::autograd::grad({d_hat}, {x_hat}, {ember::ones_like(d_hat)},
                                           /*retain_graph=*/true, /*create_graph=*/true)[0];
    const Tensor g_norm = (g * g).sum(1).add(1e-12).sqrt();  // (batch)
    const Tensor penalty = ((g_norm - 1.0) * (g_norm - 1.0)).mean() * lambda;
    const Tensor wasserstein = critic(real).mean() - critic(fake).mean();
    const Tensor loss = -wasserstein + penalty;
    adam.zero_grad();
    loss.backward();
    adam.step();
    if (step % 50 == 0)
      std::printf("%6d %12.4f %12.4f %14.4f\n", step, wasserstein.item<double>(),
                  penalty.item<double>(), g_norm.mean().item<double>());
  }
  return 0;
}
