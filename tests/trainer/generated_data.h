#pragma once
// A small generated data set in Fashion-MNIST's IDX format, and trainer
// options pointing at it: what the trainer tests (CPU and CUDA) train on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "options.h"
#include "test_helpers.h"
#include "trainer.h"

namespace trainer_test {

namespace fs = std::filesystem;


inline void put_be32(std::ofstream& f, uint32_t v) {
  const unsigned char b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  f.write(reinterpret_cast<const char*>(b), 4);
}

// Writes <dir>/<prefix>-images-idx3-ubyte and -labels-idx1-ubyte: n 28x28
// images of uniform noise in [0, 160), where class k adds 60 to a 5x5 square
// centred in cell k of a 4x3 grid, shifted by up to 2 pixels each way.
// Learnable, but not at a glance: the square is dimmer than the brightest noise.
inline void write_split(const fs::path& dir, const std::string& prefix, int n, uint32_t seed) {
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
    o.device = "cpu";  // the CPU runs are bit-reproducible; trainer_cuda_test.cpp sets cuda
    return o;
  }
  // Trains 320 steps (8 epochs of 40) on `device`: the loss must fall 10x and
  // the test accuracy reach 95%. Returns the run's options.
  train::Options require_learns(const std::string& name, const std::string& device) const {
    train::Options o = options(name);
    o.device = device;
    o.batch_size = 16;  // 40 steps per epoch
    o.epochs = 8;
    std::ostringstream out;
    const train::RunResult r = train::run(o, out);
    INFO(out.str());
    REQUIRE(r.epochs.size() == 8);
    REQUIRE(r.epochs.back().train_loss * 10 < r.epochs.front().train_loss);
    REQUIRE(r.epochs.back().test_accuracy >= 0.95);
    return o;
  }
  // Run `name` on `device` trained for epoch 1, then resumed for epoch 2 from
  // its checkpoint: the resumed run trains epoch 2 only.
  struct Resumed {
    train::RunResult first, second;
    train::Options options;  // the resumed run's
  };
  Resumed resume_after_epoch_1(const std::string& name, const std::string& device) const {
    Resumed r;
    train::Options first = options(name);
    first.device = device;
    first.epochs = 1;
    std::ostringstream out;
    r.first = train::run(first, out);
    r.options = first;
    r.options.epochs = 2;
    r.options.resume = true;
    r.second = train::run(r.options, out);
    REQUIRE(r.second.epochs.size() == 1);
    REQUIRE(r.second.epochs[0].epoch == 2);
    return r;
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

}  // namespace trainer_test
