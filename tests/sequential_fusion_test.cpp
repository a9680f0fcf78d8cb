// Fusion in Sequential (nn/modules/container/sequential_fusion.h): Conv2d ->
// BatchNorm2d [-> ReLU] in eval and BatchNorm -> ReLU in training against the
// modules run one by one, the folded weights kept until a source tensor
// changes, every case that must not fuse, and batch_norm_relu's gradients.
#include "test_helpers.h"

#include <functional>
#include <thread>
#include <utility>
#include <vector>

using namespace ember;

namespace {

// A Conv2d -> BatchNorm2d [-> ReLU] block whose BatchNorm has statistics and an
// affine map far from the identity, so that a wrong fold shows.
struct Block {
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
  nn::ReLU relu;
  nn::Sequential seq;

  Block(ScalarType dtype, bool conv_bias, bool with_relu, int64_t stride = 2)
      : conv(nn::Conv2dOptions(3, 8, 3).stride(stride).padding(1).bias(conv_bias)),
        bn(8) {
    seq->push_back(conv);
    seq->push_back(bn);
    if (with_relu) seq->push_back(relu);
    seq->to(dtype);
    NoGradGuard no_grad;
    bn->running_mean.copy_(randn({8}, dtype));
    bn->running_var.copy_(rand({8}, dtype) * 3 + 0.1);
    bn->weight.copy_(randn({8}, dtype));
    bn->bias.copy_(randn({8}, dtype));
    seq->eval();
  }

  // The modules one by one, never fused.
  Tensor unfused(const Tensor& x) {
    Tensor y = bn->forward(conv->forward(x));
    return seq->size() == 3 ? relu->forward(y) : y;
  }
};

double max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

// got equals want within tol relative to want's largest magnitude (at least 1).
bool near_within(const Tensor& got, const Tensor& want, double tol) {
  return max_abs_diff(got, want) <= tol * (1 + want.abs().max().item<double>());
}

// The process-wide fusion counters' growth since construction.
struct FusionStatsProbe {
  nn::SequentialFusionStats start = nn::sequential_fusion_stats();
  int64_t conv_bn_runs() const { return nn::sequential_fusion_stats().conv_bn_runs - start.conv_bn_runs; }
  int64_t folds() const { return nn::sequential_fusion_stats().folds - start.folds; }
};

}  // namespace

TEST_CASE("eval fusion: Conv2d, BatchNorm2d and ReLU in eval under NoGradGuard equal the modules "
          "run one by one",
          "[sequential_fusion]") {
  manual_seed(31);
  for (const bool conv_bias : {false, true})
    for (const bool with_relu : {false, true}) {
      INFO("conv bias " << conv_bias << ", relu " << with_relu);
      for (const ScalarType dtype : {kFloat, kDouble}) {
        Block b(dtype, conv_bias, with_relu);
        const Tensor x = randn({5, 3, 12, 11}, dtype);
        NoGradGuard no_grad;
        const FusionStatsProbe probe;
        const Tensor fused = b.seq->forward(x);
        REQUIRE(probe.conv_bn_runs() == 1);
        const Tensor want = b.unfused(x);
        REQUIRE(fused.sizes() == want.sizes());
        // Folding rounds w * scale once more than the two passes do.
        const double tol = dtype == kFloat ? 2e-5 : 1e-12;
        REQUIRE(near_within(fused, want, tol));
        if (with_relu) REQUIRE(fused.min().item<double>() == 0.0);
      }
    }
}

TEST_CASE("eval fusion: the folded weights are computed once, and again after any source changes",
          "[sequential_fusion]") {
  manual_seed(32);
  Block b(kFloat, true, true);
  const Tensor x = randn({4, 3, 10, 10});
  NoGradGuard no_grad;
  const FusionStatsProbe probe;
  b.seq->forward(x);
  b.seq->forward(x);
  REQUIRE(probe.folds() == 1);
  REQUIRE(probe.conv_bn_runs() == 2);
  // Each change of a source tensor in place (its version moves) folds again,
  // and the output follows it.
  const std::vector<std::pair<const char*, std::function<void()>>> changes{
      {"conv weight", [&] { b.conv->weight.mul_(1.5); }},
      {"conv bias", [&] { b.conv->bias.add_(0.25); }},
      {"bn weight", [&] { b.bn->weight.mul_(-1); }},
      {"bn bias", [&] { b.bn->bias.sub_(0.5); }},
      {"running mean", [&] { b.bn->running_mean.add_(1); }},
      {"running var", [&] { b.bn->running_var.mul_(4); }},
      {"eps", [&] { b.bn->options.eps(0.5); }},
  };
  int64_t folds = 1;
  for (const auto& [what, change] : changes) {
    INFO(what);
    change();
    const Tensor fused = b.seq->forward(x);
    REQUIRE(probe.folds() == ++folds);
    const Tensor want = b.unfused(x);
    REQUIRE(near_within(fused, want, 2e-5));
  }
  // A state_dict loaded into the model copies into every tensor: one more fold.
  Block other(kFloat, true, true);
  load_state_dict(*b.seq, state_dict(*other.seq));
  const Tensor after_load = b.seq->forward(x);
  REQUIRE(probe.folds() == folds + 1);
  const Tensor want = b.unfused(x);  // the loaded tensors, with b's own eps (an option)
  REQUIRE(near_within(after_load, want, 2e-5));
}

TEST_CASE("eval fusion: nothing fuses with grad mode on, in training, with a hook, without running "
          "stats, or when switched off",
          "[sequential_fusion]") {
  manual_seed(33);
  const Tensor x = randn({4, 3, 9, 9});
  SECTION("grad mode on: the graph is recorded and gradients flow") {
    Block b(kFloat, true, true);
    const FusionStatsProbe probe;
    const Tensor y = b.seq->forward(x);
    REQUIRE(probe.conv_bn_runs() == 0);
    REQUIRE(y.grad_fn() != nullptr);
    y.sum().backward();
    REQUIRE(b.conv->weight.grad().defined());
  }
  SECTION("BatchNorm2d in training normalizes with the batch and updates its statistics") {
    Block b(kFloat, false, true);
    b.seq->train();
    NoGradGuard no_grad;
    const Tensor mean_before = b.bn->running_mean.clone();
    const FusionStatsProbe probe;
    b.seq->forward(x);
    REQUIRE(probe.conv_bn_runs() == 0);
    REQUIRE(max_abs_diff(b.bn->running_mean, mean_before) > 0);
  }
  SECTION("a forward hook on the BatchNorm sees its output") {
    Block b(kFloat, true, true);
    int calls = 0;
    b.bn->register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) { ++calls; });
    NoGradGuard no_grad;
    const FusionStatsProbe probe;
    b.seq->forward(x);
    REQUIRE(calls == 1);
    REQUIRE(probe.conv_bn_runs() == 0);
  }
  SECTION("BatchNorm2d without running statistics uses the batch's own, unfused") {
    nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(3, 4, 3)),
                       nn::BatchNorm2d(nn::BatchNormOptions(4).track_running_stats(false)));
    seq->eval();
    NoGradGuard no_grad;
    const FusionStatsProbe probe;
    const Tensor y = seq->forward(x);
    REQUIRE(probe.conv_bn_runs() == 0);
    REQUIRE(y.mean({0, 2, 3}).abs().max().item<double>() < 1e-5);  // normalized per batch
  }
  SECTION("set_sequential_fusion(false) runs the modules one by one, bit for bit") {
    Block b(kFloat, true, true);
    NoGradGuard no_grad;
    nn::set_sequential_fusion(false);
    const FusionStatsProbe probe;
    const Tensor y = b.seq->forward(x);
    nn::set_sequential_fusion(true);
    REQUIRE(probe.conv_bn_runs() == 0);
    REQUIRE(equal(y, b.unfused(x)));
  }
}

TEST_CASE("eval fusion: the sample model's blocks fuse, and its eval accuracy path is unchanged",
          "[sequential_fusion]") {
  manual_seed(34);
  // Three Conv2d(stride 2) + BatchNorm2d + ReLU blocks, Flatten, Linear: the trainer's model.
  nn::Sequential seq;
  int64_t in = 3;
  for (int64_t out : {32, 64, 128}) {
    seq->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(2).padding(1).bias(false)));
    seq->push_back(nn::BatchNorm2d(out));
    seq->push_back(nn::ReLU());
    in = out;
  }
  seq->push_back(nn::Flatten());
  seq->push_back(nn::Linear(128 * 4 * 4, 10));
  const Tensor x = randn({16, 3, 32, 32});
  for (int step = 0; step < 3; ++step) seq->forward(x).sum().backward();  // running stats move
  seq->eval();
  NoGradGuard no_grad;
  const FusionStatsProbe probe;
  const Tensor fused = seq->forward(x);
  REQUIRE(probe.conv_bn_runs() == 3);
  nn::set_sequential_fusion(false);
  const Tensor plain = seq->forward(x);
  nn::set_sequential_fusion(true);
  REQUIRE(near_within(fused, plain, 1e-4));
  REQUIRE(equal(fused.argmax(1), plain.argmax(1)));
}

namespace {

// A BatchNorm (2d for 4-D x, else 1d) -> ReLU pair with a non-trivial affine map.
nn::Sequential bn_relu_pair(const Tensor& x) {
  const int64_t c = x.size(1);
  nn::Sequential seq;
  if (x.dim() == 4) seq->push_back(nn::BatchNorm2d(c));
  else seq->push_back(nn::BatchNorm1d(c));
  seq->push_back(nn::ReLU());
  seq->to(x.scalar_type());
  NoGradGuard no_grad;
  for (auto& p : seq->parameters()) p.copy_(randn(p.sizes(), x.scalar_type()));
  return seq;
}

struct PairResult {
  Tensor y, gx, gw, gb, running_mean, running_var, batches;
};

PairResult run_pair(const Tensor& x_in, const Tensor& gy, bool fused) {
  manual_seed(40);
  nn::Sequential seq = bn_relu_pair(x_in);
  nn::set_sequential_fusion(fused);
  const Tensor x = x_in.detach().requires_grad_();
  const Tensor y = seq->forward(x);
  nn::set_sequential_fusion(true);
  (y * gy).sum().backward();
  const auto params = seq->named_parameters();
  const auto buffers = seq->named_buffers();
  return {y.detach(), x.grad(), params["0.weight"].grad(), params["0.bias"].grad(),
          buffers["0.running_mean"], buffers["0.running_var"], buffers["0.num_batches_tracked"]};
}

}  // namespace

TEST_CASE("BatchNorm -> ReLU in training runs as batch_norm_relu and equals the modules one by "
          "one",
          "[sequential_fusion]") {
  manual_seed(35);
  for (const ScalarType dtype : {kFloat, kDouble})
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{8, 5, 6, 7}, {16, 6}, {4, 3, 33}}) {
      INFO(dtype << " " << shape.size() << "-D");
      const Tensor x = randn(shape, dtype) * 2 + 0.5, gy = randn(shape, dtype);
      const int64_t before = nn::sequential_fusion_stats().bn_relu_runs;
      const PairResult fused = run_pair(x, gy, true);
      REQUIRE(nn::sequential_fusion_stats().bn_relu_runs == before + 1);
      const PairResult plain = run_pair(x, gy, false);
      REQUIRE(nn::sequential_fusion_stats().bn_relu_runs == before + 1);
      REQUIRE(fused.y.min().item<double>() == 0.0);
      REQUIRE(equal(fused.y, plain.y));
      // The gradients' and the batch variance's arithmetic is the same; the compiler may
      // contract it into FMAs differently in the two kernels (an ulp: seen in the running
      // variance of a float64 2-D batch on an AVX2 build).
      const double tol = dtype == kFloat ? 1e-5 : 1e-13;
      for (const auto& [f, p] : {std::pair{fused.gx, plain.gx}, {fused.gw, plain.gw},
                                 {fused.gb, plain.gb}, {fused.running_var, plain.running_var}})
        REQUIRE(near_within(f, p, tol));
      REQUIRE(equal(fused.running_mean, plain.running_mean));
      REQUIRE(fused.batches.item<int64_t>() == 1);
    }
}

TEST_CASE("batch_norm_relu: gradcheck and gradgradcheck in training, with and without affine",
          "[sequential_fusion]") {
  manual_seed(36);
  // Inputs away from relu's kink: shifted so few outputs sit near 0.
  const Tensor x = (randn({4, 3, 5}, kDouble) + 0.3).requires_grad_();
  const Tensor w = (rand({3}, kDouble) + 0.5).requires_grad_();
  const Tensor b = (randn({3}, kDouble) * 0.1).requires_grad_();
  auto affine = [](const tensor_list& in) {
    return batch_norm_relu(in[0], in[1], in[2], {}, {}, true, 0.1, 1e-5);
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(affine, {x, w, b}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(affine, {x, w, b}));
  auto plain = [](const tensor_list& in) {
    return batch_norm_relu(in[0], {}, {}, {}, {}, true, 0.1, 1e-5);
  };
  REQUIRE_GRADCHECK(autograd::gradcheck(plain, {x}));
  // Not training: relu(batch_norm(...)) with the running statistics.
  const Tensor rm = randn({3}, kDouble), rv = rand({3}, kDouble) + 0.5;
  NoGradGuard no_grad;
  REQUIRE(equal(batch_norm_relu(x, w, b, rm, rv, false, 0.1, 1e-5),
                relu(batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5))));
}

TEST_CASE("eval fusion: several threads running one Sequential at once fold it and agree",
          "[sequential_fusion]") {
  manual_seed(37);
  Block b(kFloat, true, true);
  const Tensor x = randn({4, 3, 10, 10});
  Tensor want;
  {
    NoGradGuard no_grad;
    b.seq->forward(x);         // a fold, which the change below makes stale:
    b.conv->weight.mul_(0.5);  // the forwards below all see it and race to refold
    want = b.unfused(x);
  }
  std::vector<Tensor> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      NoGradGuard no_grad;  // grad mode is per thread
      for (int i = 0; i < 5; ++i) got[t] = b.seq->forward(x);
    });
  for (auto& th : threads) th.join();
  for (const Tensor& y : got)
    REQUIRE(near_within(y, want, 2e-5));
}
