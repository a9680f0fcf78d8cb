#pragma once
// The trainer's command line: the flags of the original PyTorch script
// (--lr --epochs --batch-size --num-workers --resume --checkpoint) plus ember's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace train {

struct Options {
  double lr = 1e-3;
  int64_t epochs = 5;
  int64_t batch_size = 64;
  int64_t num_workers = 2;
  bool resume = false;
  std::string checkpoint = "checkpoints/train.ckpt";
  std::string dataset = "fashion-mnist";  // or "cifar10"
  std::string data;                       // default per dataset (data_dir_default)
  std::string device = "auto";            // cpu, cuda or auto
  uint64_t seed = 1;
  bool benchmark = true;                  // cudnn.benchmark (and the CPU conv search)
  std::optional<bool> augment;            // default per dataset
  std::string log_dir = "runs/train";     // CSV and TensorBoard event files
  int64_t threads = 0;                    // 0: ember's default
  int64_t limit_train_batches = 0;        // 0: all; for quick runs and tests
  int64_t limit_test_batches = 0;
  int64_t log_every = 50;                 // steps between plain progress lines (no tty)
  int64_t stop_after = 0;                 // tests: act as if Ctrl-C came after N steps
  std::string amp = "off";                // mixed precision: bf16, fp16 or off
};

// Parses argv; on --help prints the usage and exits 0, on a bad flag prints
// the problem and the usage to stderr and exits 2.
Options parse_options(int argc, char** argv);
std::string usage();
std::string default_data_dir(const std::string& dataset);

}  // namespace train
