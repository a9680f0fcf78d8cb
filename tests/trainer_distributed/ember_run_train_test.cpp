// The sample trainer under the launcher, on the generated data set of
// tests/trainer/generated_data.h: `ember-run --nproc-per-node 2 train ...`
// learns as one process does, prints rank 0's lines once, checkpoints,
// resumes at the right epoch, refuses to resume with another world size, and
// stops every rank at the same step when interrupted. Each run is a
// subprocess bounded by a deadline; the whole file takes a few seconds.
#include <catch2/catch.hpp>

#include <signal.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "generated_data.h"
#include "run_program.h"

namespace fs = std::filesystem;
using namespace trainer_distributed_test;
using trainer_test::Workspace;

namespace {

constexpr auto kDeadline = std::chrono::seconds(120);

// The flags of a Workspace run; 8 images per rank make 40 steps per epoch of
// the 640 images on 2 ranks, a global batch of 16 as the single-process test's.
std::vector<std::string> flags(const train::Options& o, int64_t epochs) {
  return {"--data",         o.data,        "--checkpoint", o.checkpoint, "--log-dir", o.log_dir,
          "--batch-size",   "8",           "--num-workers", "0",         "--no-benchmark",
          "--device",       "cpu",         "--epochs",     std::to_string(epochs)};
}

// One thread per rank, said explicitly: ember-run then adds no line of its own.
ProgramRun train_on(const Workspace& ws, int nproc, std::vector<std::string> args) {
  static int runs = 0;
  const fs::path dir = ws.root / ("run_" + std::to_string(runs++));
  fs::create_directories(dir);
  return run_program(ember_run_train(nproc, args), {"EMBER_NUM_THREADS=1"}, dir, kDeadline);
}

std::string describe(const ProgramRun& r) {
  return "exit " + std::to_string(r.exit_code) + (r.timed_out ? " (killed at the deadline)" : "") +
         "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("train under ember-run with 2 ranks learns the generated data; rank 0 alone prints",
          "[trainer_distributed]") {
  Workspace ws;
  const train::Options o = ws.options("learn2");
  const ProgramRun r = train_on(ws, 2, flags(o, 8));
  INFO(describe(r));
  REQUIRE(r.exit_code == 0);
  // The single-process bar (generated_data.h, require_learns): 320 steps of 16 images.
  const std::vector<double> loss = csv_column(fs::path(o.log_dir) / "metrics.csv", "train_loss");
  const std::vector<double> accuracy =
      csv_column(fs::path(o.log_dir) / "metrics.csv", "test_accuracy");
  REQUIRE(loss.size() == 8);
  REQUIRE(loss.back() * 10 < loss.front());
  REQUIRE(accuracy.back() >= 0.95);
  // One header naming the per-rank batch, one summary line per epoch, no rank 1 output.
  REQUIRE(count(r.out, "ember sample trainer:") == 1);
  REQUIRE(count(r.out, "batch 8 per rank × 2 ranks") == 1);
  for (int e = 1; e <= 8; ++e) REQUIRE(count(r.out, "epoch " + std::to_string(e) + "/8: train loss") == 1);
  REQUIRE(r.err.empty());
  const ember::Checkpoint ck = ember::load_checkpoint(o.checkpoint);
  REQUIRE(ck.metadata.at("world_size") == "2");
  REQUIRE(ck.metadata.at("batch_size") == "8");
  REQUIRE(ck.metadata.at("epoch") == "8");
}

TEST_CASE("train under ember-run resumes at the next epoch, and not with another world size",
          "[trainer_distributed]") {
  Workspace ws;
  const train::Options o = ws.options("resume2");
  const ProgramRun first = train_on(ws, 2, with(flags(o, 1), {"--limit-train-batches", "5"}));
  INFO(describe(first));
  REQUIRE(first.exit_code == 0);
  REQUIRE(fs::exists(o.checkpoint));

  const ProgramRun second =
      train_on(ws, 2, with(flags(o, 2), {"--limit-train-batches", "5", "--resume"}));
  INFO(describe(second));
  REQUIRE(second.exit_code == 0);
  REQUIRE(count(second.out, "resumed from " + o.checkpoint + " at epoch 2, step 0") == 1);
  REQUIRE(count(second.out, "epoch 1/2: train loss") == 0);
  REQUIRE(count(second.out, "epoch 2/2: train loss") == 1);
  REQUIRE(ember::load_checkpoint(o.checkpoint).metadata.at("epoch") == "2");
  REQUIRE(csv_column(fs::path(o.log_dir) / "metrics.csv", "epoch") == std::vector<double>{1, 2});

  const ProgramRun alone =
      train_on(ws, 1, with(flags(o, 3), {"--limit-train-batches", "5", "--resume"}));
  INFO(describe(alone));
  REQUIRE(alone.exit_code == 1);
  REQUIRE(count(alone.err, "was made with world_size 2, this run has 1") == 1);
}

TEST_CASE("train under ember-run interrupted stops every rank at one step and resumes exactly",
          "[trainer_distributed]") {
  Workspace ws;
  // Reference: 2 epochs of 20 steps without a stop.
  const train::Options straight = ws.options("straight2");
  const ProgramRun s = train_on(ws, 2, with(flags(straight, 2), {"--limit-train-batches", "20"}));
  INFO(describe(s));
  REQUIRE(s.exit_code == 0);

  // --stop-after acts as Ctrl-C after step 27 on every rank: epoch 2, step 7.
  const train::Options o = ws.options("stopped2");
  const ProgramRun stopped =
      train_on(ws, 2, with(flags(o, 2), {"--limit-train-batches", "20", "--stop-after", "27"}));
  INFO(describe(stopped));
  REQUIRE(stopped.exit_code == 130);
  REQUIRE(count(stopped.out, "interrupted: checkpoint saved to " + o.checkpoint +
                                 " (epoch 2, step 7)") == 1);
  const ember::Checkpoint ck = ember::load_checkpoint(o.checkpoint);
  REQUIRE(ck.metadata.at("epoch") == "1");
  REQUIRE(ck.metadata.at("step_in_epoch") == "7");

  const ProgramRun resumed =
      train_on(ws, 2, with(flags(o, 2), {"--limit-train-batches", "20", "--resume"}));
  INFO(describe(resumed));
  REQUIRE(resumed.exit_code == 0);
  // The same weights, bit for bit, as the run that was never stopped.
  const ember::Checkpoint straight_ck = ember::load_checkpoint(straight.checkpoint);
  const ember::Checkpoint resumed_ck = ember::load_checkpoint(o.checkpoint);
  const ember::TensorDict& a = straight_ck.section("model");
  const ember::TensorDict& b = resumed_ck.section("model");
  REQUIRE(a.keys() == b.keys());
  for (const auto& item : a) {
    INFO(item.key());
    const ember::Tensor ta = item.value().contiguous(), tb = b[item.key()].contiguous();
    REQUIRE(ta.sizes() == tb.sizes());
    REQUIRE(std::memcmp(ta.data_ptr(), tb.data_ptr(), ta.nbytes()) == 0);
  }
}

TEST_CASE("train under ember-run: a SIGINT that reaches rank 1 alone stops both ranks at one step",
          "[trainer_distributed]") {
  // The hard case of agreeing to stop: the ranks learn of it at different
  // steps (here, rank 0 never), and must still leave the loop together.
  Workspace ws;
  const train::Options o = ws.options("signal2");
  const ProgramRun r = run_program(
      ember_run_train(2, flags(o, 1000)), {"EMBER_NUM_THREADS=1"}, ws.root, kDeadline,
      [](pid_t launcher, const fs::path& out) {
        REQUIRE(wait_for_text(out, "epoch 1/1000: train loss", std::chrono::seconds(60)));
        const pid_t rank1 = rank_pid(launcher, 1);
        REQUIRE(rank1 > 0);
        kill(rank1, SIGINT);
      });
  INFO(describe(r));
  REQUIRE(r.exit_code == 130);
  REQUIRE(count(r.out, "interrupted: checkpoint saved to " + o.checkpoint) == 1);
  const ember::Checkpoint ck = ember::load_checkpoint(o.checkpoint);
  REQUIRE(ck.metadata.at("world_size") == "2");
  REQUIRE(std::stoll(ck.metadata.at("global_step")) > 40);  // stopped after epoch 1
}
