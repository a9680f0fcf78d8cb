// The sample trainer end to end on the CPU, on a small generated
// Fashion-MNIST-format data set (generated_data.h): it learns, a resumed run
// ends with the weights of an uninterrupted one, and an interruption saves a
// checkpoint that resumes mid-epoch. trainer_cuda_test.cpp trains on CUDA.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "generated_data.h"

namespace fs = std::filesystem;

namespace {

using trainer_test::Workspace;

// Every tensor of every section, compared bit for bit.
void require_same_checkpoint(const std::string& a_path, const std::string& b_path) {
  const ember::Checkpoint a = ember::load_checkpoint(a_path), b = ember::load_checkpoint(b_path);
  for (const char* section : {"model", "optimizer"}) {
    const ember::TensorDict& sa = a.section(section);
    const ember::TensorDict& sb = b.section(section);
    REQUIRE(sa.keys() == sb.keys());
    for (const auto& item : sa) {
      INFO(section << "/" << item.key());
      const ember::Tensor& ta = item.value();
      const ember::Tensor& tb = sb[item.key()];
      REQUIRE(ta.sizes() == tb.sizes());
      REQUIRE(ta.dtype() == tb.dtype());
      REQUIRE(std::memcmp(ta.contiguous().data_ptr(), tb.contiguous().data_ptr(), ta.nbytes()) == 0);
    }
  }
  REQUIRE(a.metadata.at("epoch") == b.metadata.at("epoch"));
  REQUIRE(a.metadata.at("global_step") == b.metadata.at("global_step"));
}

}  // namespace

TEST_CASE("the sample model trained 320 steps on generated data: loss falls 10x, accuracy >= 95%",
          "[trainer]") {
  Workspace ws;
  const train::Options o = ws.require_learns("learn", "cpu");
  // The per-epoch outputs exist: the checkpoint, the CSV (header + 8 rows) and an event file.
  REQUIRE(fs::exists(o.checkpoint));
  std::ifstream csv(fs::path(o.log_dir) / "metrics.csv");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  REQUIRE(lines == 9);
  bool has_events = false;
  for (const auto& entry : fs::directory_iterator(o.log_dir))
    has_events |= entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  REQUIRE(has_events);
}

TEST_CASE("a run resumed after epoch 1 ends with the weights of an uninterrupted run",
          "[trainer]") {
  Workspace ws;
  const std::string straight = ws.run_uninterrupted(2);
  require_same_checkpoint(straight, ws.resume_after_epoch_1("resumed", "cpu").options.checkpoint);
}

TEST_CASE("an interruption mid-epoch saves a checkpoint that resumes to the same weights",
          "[trainer]") {
  Workspace ws;
  const std::string straight = ws.run_uninterrupted(2);
  std::ostringstream out;

  train::Options stopped = ws.options("stopped");
  stopped.epochs = 2;
  stopped.stop_after = 27;  // epoch 2 of 20 steps each: step 7
  const train::RunResult r1 = train::run(stopped, out);
  REQUIRE(r1.interrupted);
  REQUIRE(r1.epochs.size() == 1);
  const ember::Checkpoint ck = ember::load_checkpoint(stopped.checkpoint);
  REQUIRE(ck.metadata.at("epoch") == "1");
  REQUIRE(ck.metadata.at("step_in_epoch") == "7");

  train::Options resumed = stopped;
  resumed.stop_after = 0;
  resumed.resume = true;
  const train::RunResult r2 = train::run(resumed, out);
  REQUIRE_FALSE(r2.interrupted);
  require_same_checkpoint(straight, resumed.checkpoint);
}

TEST_CASE("resume refuses a missing checkpoint and one made with another batch size",
          "[trainer]") {
  Workspace ws;
  train::Options o = ws.options("refuse");
  o.resume = true;
  std::ostringstream out;
  REQUIRE_THROWS_WITH(train::run(o, out), Catch::Contains("no checkpoint at") &&
                                              Catch::Contains("refuse.ckpt"));
  o.resume = false;
  o.epochs = 1;
  o.limit_train_batches = 2;
  train::run(o, out);
  o.resume = true;
  o.batch_size = 16;
  REQUIRE_THROWS_WITH(train::run(o, out), Catch::Contains("batch_size 32, this run has 16"));
}

TEST_CASE("train --amp bf16 learns and resumes on the CPU; --amp fp16 asks for CUDA", "[trainer]") {
  const Workspace ws;
  train::Options o = ws.options("amp");
  o.amp = "bf16";
  o.epochs = 2;
  std::ostringstream out;
  const train::RunResult r = train::run(o, out);
  REQUIRE(r.epochs.size() == 2);
  CHECK(r.epochs[1].train_loss < r.epochs[0].train_loss);
  o.epochs = 3;
  o.resume = true;
  CHECK(train::run(o, out).epochs.size() == 1);  // epoch 3 from the checkpoint
  o.resume = false;
  o.amp = "fp16";
  REQUIRE_THROWS_WITH(train::run(o, out), Catch::Contains("train --amp fp16: the CPU computes in bfloat16 only"));
}

TEST_CASE("trainer flags parse as documented", "[trainer]") {
  std::vector<std::string> args = {"train",       "--lr=0.01",       "--epochs", "3",
                                   "--batch-size", "128",            "--dataset", "cifar10",
                                   "--no-benchmark", "--augment",    "--resume", "--seed", "7",
                                   "--amp", "bf16"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const train::Options o = train::parse_options(int(argv.size()), argv.data());
  REQUIRE(o.lr == 0.01);
  REQUIRE(o.epochs == 3);
  REQUIRE(o.batch_size == 128);
  REQUIRE(o.dataset == "cifar10");
  REQUIRE(o.data == train::default_data_dir("cifar10"));
  REQUIRE_FALSE(o.benchmark);
  REQUIRE(o.augment == true);
  REQUIRE(o.resume);
  REQUIRE(o.seed == 7);
  REQUIRE(o.amp == "bf16");
  const train::Options d = train::parse_options(1, argv.data());
  REQUIRE(d.amp == "off");
  REQUIRE(d.lr == 1e-3);
  REQUIRE(d.epochs == 5);
  REQUIRE(d.batch_size == 64);
  REQUIRE(d.dataset == "fashion-mnist");
  REQUIRE(d.benchmark);
}
