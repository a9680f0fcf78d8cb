// Accuracy bars of one epoch on the real Fashion-MNIST (Debian's
// dataset-fashion-mnist, as `scripts/setup.sh --with-data` installs it),
// built twice (tests/trainer_distributed/CMakeLists.txt):
//  - issue #26: `ember-run --nproc-per-node 2 train --epochs 1` reaches the
//    single-process trainer's bar of 87.5% test accuracy: the global batch is
//    128, half the steps of one process (87.98% on the 2-core machine);
//  - issue #24 (EMBER_FASHION_MNIST_AMP): `train --amp bf16 --epochs 1`, one
//    process in mixed precision, reaches 87% (88.90% on the 2-core machine).
// --no-benchmark makes the runs reproducible (with the timed conv algorithm
// choice, 87.83-88.04% over four 2-rank runs). Without the data it says so and
// exits 77, which CTest reports as skipped, never as passed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "run_program.h"

namespace fs = std::filesystem;
using namespace trainer_distributed_test;

int main() {
  // EMBER_FASHION_MNIST: the data elsewhere (the trainer's --data).
  const char* where = std::getenv("EMBER_FASHION_MNIST");
  const fs::path data = where ? where : "/usr/share/datasets/fashion-mnist";
  for (const char* file : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    if (!fs::exists(data / file) && !fs::exists(data / (std::string(file) + ".gz"))) {
      std::cout << "SKIPPED: no Fashion-MNIST in " << data.string() << " (missing " << file
                << "); `scripts/setup.sh --with-data` installs Debian's dataset-fashion-mnist\n";
      return 77;
    }
  }
  const fs::path dir = fs::temp_directory_path() /
                       ("ember_trainer_fashion_mnist_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> flags = {"--epochs", "1", "--data", data.string(), "--checkpoint",
                                          (dir / "train.ckpt").string(), "--log-dir",
                                          (dir / "runs").string(), "--log-every", "100",
                                          "--no-benchmark"};
#if defined(EMBER_FASHION_MNIST_AMP)
  const char* what = "--amp bf16, 1 process";
  const double bar = 0.87;
  std::vector<std::string> argv = {TRAIN_PATH, "--amp", "bf16"};
  argv.insert(argv.end(), flags.begin(), flags.end());
#else
  const char* what = "2 ranks";
  const double bar = 0.875;
  const std::vector<std::string> argv = ember_run_train(2, flags);
#endif
  const ProgramRun r = run_program(argv, {}, dir, std::chrono::seconds(800));
  std::cout << r.out << r.err;
  double accuracy = -1;
  if (r.exit_code == 0) accuracy = csv_column(dir / "runs" / "metrics.csv", "test_accuracy").at(0);
  fs::remove_all(dir);
  std::printf("%s, 1 epoch: exit %d%s, test accuracy %.2f%% (bar %.1f%%), %.1f s\n", what,
              r.exit_code, r.timed_out ? " (killed at the deadline)" : "", 100 * accuracy,
              100 * bar, r.seconds);
  return r.exit_code == 0 && accuracy >= bar ? 0 : 1;
}
