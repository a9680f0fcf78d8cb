#include "options.h"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace train {

std::string default_data_dir(const std::string& dataset) {
  return dataset == "cifar10" ? "data/cifar-10-batches-bin" : "/usr/share/datasets/fashion-mnist";
}

std::string usage() {
  return R"(usage: train [flags]
Trains the sample CNN (3 x [Conv 3x3 stride 2 + BatchNorm + ReLU], Linear) and
reports test accuracy after each epoch.

  --dataset NAME         fashion-mnist (default) or cifar10
  --data DIR             data folder (default: /usr/share/datasets/fashion-mnist,
                         or data/cifar-10-batches-bin for cifar10)
  --epochs N             epochs to train (default 5)
  --batch-size N         per process (default 64); under ember-run the global
                         batch is N times the number of ranks
  --lr X                 Adam learning rate (default 0.001)
  --num-workers N        data-loading threads (default 2; 0 loads on the training thread)
  --device NAME          cpu, cuda or auto (default auto: cuda when available)
  --seed N               seeds the model, the data order and augmentation (default 1)
  --benchmark, --no-benchmark
                         search for the fastest conv algorithm per shape (default on)
  --augment, --no-augment
                         random crop + horizontal flip (default: on for cifar10,
                         off for fashion-mnist)
  --checkpoint PATH      written atomically after every epoch (default checkpoints/train.ckpt)
  --resume               continue from --checkpoint: weights, optimizer, epoch, RNG
  --log-dir DIR          metrics.csv and TensorBoard events (default runs/train)
  --threads N            CPU threads (default: all cores)
  --amp MODE             mixed precision: bf16, fp16 (CUDA; with loss scaling) or off
                         (default off): convolutions and matrix products in 16 bits,
                         the loss in float32 (docs/dtypes.md)
  --limit-train-batches N, --limit-test-batches N
                         stop each epoch after N batches (quick runs)
  --log-every N          steps between progress lines when stdout is not a terminal
  --stop-after N         behave as if Ctrl-C came after N training steps (for tests)
  --help                 this text

On several processes (data parallel, docs/distributed.md):
  ember-run --nproc-per-node 2 train [flags]
Each rank trains on its share of every epoch; rank 0 alone prints, logs,
evaluates and writes the checkpoint, and --resume needs the same number of ranks.
)";
}

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "train: " << message << "\n\n" << usage();
  std::exit(2);
}

int64_t to_int(const std::string& flag, const std::string& text, int64_t min) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) fail(flag + " wants an integer, got '" + text + "'");
  if (v < min) fail(flag + " must be at least " + std::to_string(min) + ", got " + text);
  return v;
}

double to_double(const std::string& flag, const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) fail(flag + " wants a number, got '" + text + "'");
  return v;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  // Flags that take a value.
  const std::map<std::string, std::function<void(const std::string&)>> valued = {
      {"--lr",
       [&](const std::string& v) {
         o.lr = to_double("--lr", v);
         if (!(o.lr > 0)) fail("--lr must be positive, got " + v);
       }},
      {"--epochs", [&](const std::string& v) { o.epochs = to_int("--epochs", v, 1); }},
      {"--batch-size", [&](const std::string& v) { o.batch_size = to_int("--batch-size", v, 1); }},
      {"--num-workers",
       [&](const std::string& v) { o.num_workers = to_int("--num-workers", v, 0); }},
      {"--checkpoint", [&](const std::string& v) { o.checkpoint = v; }},
      {"--amp",
       [&](const std::string& v) {
         if (v != "bf16" && v != "fp16" && v != "off")
           fail("--amp takes bf16, fp16 or off, got " + v);
         o.amp = v;
       }},
      {"--data", [&](const std::string& v) { o.data = v; }},
      {"--dataset",
       [&](const std::string& v) {
         if (v != "fashion-mnist" && v != "cifar10")
           fail("--dataset is fashion-mnist or cifar10, got '" + v + "'");
         o.dataset = v;
       }},
      {"--device",
       [&](const std::string& v) {
         if (v != "cpu" && v != "cuda" && v != "auto")
           fail("--device is cpu, cuda or auto, got '" + v + "'");
         o.device = v;
       }},
      {"--seed", [&](const std::string& v) { o.seed = uint64_t(to_int("--seed", v, 0)); }},
      {"--log-dir", [&](const std::string& v) { o.log_dir = v; }},
      {"--threads", [&](const std::string& v) { o.threads = to_int("--threads", v, 1); }},
      {"--limit-train-batches",
       [&](const std::string& v) { o.limit_train_batches = to_int("--limit-train-batches", v, 1); }},
      {"--limit-test-batches",
       [&](const std::string& v) { o.limit_test_batches = to_int("--limit-test-batches", v, 1); }},
      {"--log-every", [&](const std::string& v) { o.log_every = to_int("--log-every", v, 1); }},
      {"--stop-after", [&](const std::string& v) { o.stop_after = to_int("--stop-after", v, 1); }},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    if (arg == "--help" || arg == "-h") {
      std::cout << usage();
      std::exit(0);
    } else if (arg == "--resume") {
      o.resume = true;
    } else if (arg == "--benchmark" || arg == "--no-benchmark") {
      o.benchmark = arg == "--benchmark";
    } else if (arg == "--augment" || arg == "--no-augment") {
      o.augment = arg == "--augment";
    } else if (auto it = valued.find(arg); it != valued.end()) {
      if (!has_value) {
        if (i + 1 >= argc) fail(arg + " needs a value");
        value = argv[++i];
      }
      it->second(value);
    } else {
      fail("unknown flag '" + arg + "'");
    }
  }
  if (o.data.empty()) o.data = default_data_dir(o.dataset);
  return o;
}

}  // namespace train
