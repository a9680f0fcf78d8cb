// The sample trainer on CUDA (run only where there is a device: main() exits
// 77 otherwise and CTest reports the test as skipped): the model learns the
// generated data set as it does on the CPU, a resumed run continues, and the
// first epoch's train loss is close to the CPU's. Not bit-exact: cuDNN and the
// atomics of some backward kernels add in another order (and cuDNN may use
// TF32, PyTorch's default), so the comparison allows 2% of the loss.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include <ember/ember.h>

#include "generated_data.h"

using trainer_test::Workspace;

TEST_CASE("on CUDA the sample model trained 320 steps: loss falls 10x, accuracy >= 95%",
          "[trainer_cuda]") {
  Workspace ws;
  ws.require_learns("learn_cuda", "cuda");
}

TEST_CASE("on CUDA the first epoch's train loss is within 2% of the CPU's", "[trainer_cuda]") {
  Workspace ws;
  train::Options cpu = ws.options("cpu_epoch");
  cpu.epochs = 1;
  train::Options gpu = ws.options("cuda_epoch");
  gpu.epochs = 1;
  gpu.device = "cuda";
  std::ostringstream out;
  // float32 convs on both sides: TF32 (on by default, as PyTorch) would let
  // the two trajectories drift apart for a reason other than a bug.
  const bool tf32 = ember::backends::cudnn::allow_tf32();
  ember::backends::cudnn::set_allow_tf32(false);
  const double cpu_loss = train::run(cpu, out).epochs.at(0).train_loss;
  const double gpu_loss = train::run(gpu, out).epochs.at(0).train_loss;
  ember::backends::cudnn::set_allow_tf32(tf32);
  INFO("cpu " << cpu_loss << ", cuda " << gpu_loss);
  REQUIRE(std::abs(gpu_loss - cpu_loss) <= 0.02 * cpu_loss);
}

TEST_CASE("on CUDA a run resumed after epoch 1 trains epoch 2 from the checkpoint",
          "[trainer_cuda]") {
  Workspace ws;
  const Workspace::Resumed r = ws.resume_after_epoch_1("resumed_cuda", "cuda");
  REQUIRE(r.second.epochs[0].train_loss < r.first.epochs.at(0).train_loss);
  const ember::Checkpoint ck = ember::load_checkpoint(r.options.checkpoint);
  REQUIRE(ck.metadata.at("epoch") == "2");
}
