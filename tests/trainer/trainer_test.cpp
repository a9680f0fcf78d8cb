// The sample trainer end to end, on a small generated Fashion-MNIST-format
// data set: it learns, a resumed run ends with the weights of an uninterrupted
// one, and an interruption saves a checkpoint that resumes mid-epoch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "options.h"
#include "test_helpers.h"
#include "trainer.h"

namespace fs = std::filesystem;

namespace {

void put_be32(std::ofstream& f, uint32_t v) {
  const unsigned char b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  f.write(reinterpret_cast<const char*>(b), 4);
}

// Writes <dir>/<prefix>-images-idx3-ubyte and -labels-idx1-ubyte: n 28x28
// images of uniform noise in [0, 160), where class k adds 60 to a 5x5 square
// centred in cell k of a 4x3 grid, shifted by up to 2 pixels each way.
// Learnable, but not at a glance: the square is dimmer than the brightest noise.
void write_split(const fs::path& dir, const std::string& prefix, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> images(size_t(n) * 28 * 28);
  std::vector<uint8_t> labels(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int label = int(rng() % 10);
    labels[size_t(i)] = uint8_t(label);
    uint8_t* img = images.data() + size_t(i) * 784;
    for (int p = 0; p < 784; ++p) img[p] = uint8_t(rng() % 160);
    const int top = 3 + (label / 4) * 8 + int(rng() % 5) - 2;
    const int left = 2 + (label % 4) * 6 + int(rng() % 5) - 2;
    for (int y = std::max(top, 0); y < std::min(top + 5, 28); ++y)
      for (int x = std::max(left, 0); x < std::min(left + 5, 28); ++x) img[y * 28 + x] += 60;
  }
  std::ofstream fi(dir / (prefix + "-images-idx3-ubyte"), std::ios::binary);
  put_be32(fi, 2051);
  put_be32(fi, uint32_t(n));
  put_be32(fi, 28);
  put_be32(fi, 28);
  fi.write(reinterpret_cast<const char*>(images.data()), std::streamsize(images.size()));
  std::ofstream fl(dir / (prefix + "-labels-idx1-ubyte"), std::ios::binary);
  put_be32(fl, 2049);
  put_be32(fl, uint32_t(n));
  fl.write(reinterpret_cast<const char*>(labels.data()), std::streamsize(labels.size()));
}

// A temp folder with a generated data set; options() points a run at it.
struct Workspace {
  ember_test::TempDir dir{"trainer_test"};
  fs::path root = dir.path();
  Workspace() {
    fs::create_directories(root / "data");
    write_split(root / "data", "train", 640, 1);
    write_split(root / "data", "t10k", 200, 2);
  }
  train::Options options(const std::string& name) const {
    train::Options o;
    o.data = (root / "data").string();
    o.checkpoint = (root / (name + ".ckpt")).string();
    o.log_dir = (root / ("runs_" + name)).string();
    o.batch_size = 32;
    o.num_workers = 0;
    o.benchmark = false;  // timing-based algorithm choice would make runs differ in the last bits
    o.threads = 2;
    return o;
  }
  // Trains `epochs` epochs without a stop; returns the final checkpoint's path.
  std::string run_uninterrupted(int64_t epochs) const {
    train::Options o = options("straight");
    o.epochs = epochs;
    std::ostringstream out;
    train::run(o, out);
    return o.checkpoint;
  }
};

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
  train::Options o = ws.options("learn");
  o.batch_size = 16;  // 40 steps per epoch
  o.epochs = 8;
  std::ostringstream out;
  const train::RunResult r = train::run(o, out);
  INFO(out.str());
  REQUIRE(r.epochs.size() == 8);
  REQUIRE(r.epochs.back().train_loss * 10 < r.epochs.front().train_loss);
  REQUIRE(r.epochs.back().test_accuracy >= 0.95);
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
  std::ostringstream out;

  train::Options first = ws.options("resumed");
  first.epochs = 1;
  train::run(first, out);
  train::Options second = first;
  second.epochs = 2;
  second.resume = true;
  const train::RunResult r = train::run(second, out);
  REQUIRE(r.epochs.size() == 1);
  REQUIRE(r.epochs[0].epoch == 2);
  require_same_checkpoint(straight, second.checkpoint);
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

TEST_CASE("trainer flags parse as documented", "[trainer]") {
  std::vector<std::string> args = {"train",       "--lr=0.01",       "--epochs", "3",
                                   "--batch-size", "128",            "--dataset", "cifar10",
                                   "--no-benchmark", "--augment",    "--resume", "--seed", "7"};
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
  const train::Options d = train::parse_options(1, argv.data());
  REQUIRE(d.lr == 1e-3);
  REQUIRE(d.epochs == 5);
  REQUIRE(d.batch_size == 64);
  REQUIRE(d.dataset == "fashion-mnist");
  REQUIRE(d.benchmark);
}
