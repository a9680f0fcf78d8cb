#include "trainer.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include <ember/ember.h>

#include "model.h"
#include "replicas.h"

namespace train {

namespace data = ember::data;
namespace F = ember::nn::functional;
using ember::Tensor;

namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void on_interrupt(int signal) {
  g_stop_requested = true;
  std::signal(signal, SIG_DFL);  // a second Ctrl-C ends the program at once
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct Data {
  std::shared_ptr<const data::Dataset> train, test;
  int64_t channels = 0, image_size = 0;
  // Pixels in [0, 255] to [-1, 1] (mean = std = 0.5 of [0, 1]), as the original
  // script's Normalize, on the model's device: the loaders hand out uint8 batches.
  std::optional<data::NormalizePixels> normalize;
};

Data load_data(const Options& o) {
  Data d;
  if (o.dataset == "cifar10") {
    d.train = std::make_shared<const data::CIFAR10>(o.data, data::Split::kTrain);
    d.test = std::make_shared<const data::CIFAR10>(o.data, data::Split::kTest);
  } else {
    d.train = std::make_shared<const data::FashionMNIST>(o.data, data::Split::kTrain);
    d.test = std::make_shared<const data::FashionMNIST>(o.data, data::Split::kTest);
  }
  const auto shape = d.train->example_shape();  // (C, H, W)
  d.channels = shape[0];
  d.image_size = shape[1];
  const std::vector<double> half(size_t(d.channels), 0.5);
  d.normalize.emplace(half, half);
  return d;
}

// Augmentation, on the loaders' uint8 pixels: crop with 4 pixels of padding,
// then flip. (Normalization follows on the device: Data::normalize.)
std::shared_ptr<const data::Transform> make_transform(const Data& d, bool augment) {
  auto compose = std::make_shared<data::Compose>();
  if (augment) {
    compose->add(std::make_shared<data::RandomCrop>(d.image_size, 4));
    compose->add(std::make_shared<data::RandomHorizontalFlip>());
  }
  return compose;
}

// "auto": the first CUDA device when there is one, else the CPU. "cuda"
// without a device stops with ember's error naming why (no driver, no backend).
ember::Device choose_device(const std::string& flag) {
  if (flag == "cuda" || (flag == "auto" && ember::cuda::is_available()))
    return ember::Device(ember::kCUDA);
  return ember::Device(ember::kCPU);
}

// Where a checkpoint says to continue.
struct Position {
  int64_t epoch = 0;          // 0-based epoch to run next
  int64_t step_in_epoch = 0;  // batches of that epoch already trained
  int64_t global_step = 0;
};

void save(const Options& o, Net& model, const ember::optim::Optimizer& optimizer,
          const ember::amp::GradScaler& scaler, const Position& at, int world_size) {
  ember::Checkpoint ck;
  ck.section("model") = ember::state_dict(*model);
  ck.section("optimizer") = optimizer.state_dict();
  if (scaler.is_enabled()) ck.section("scaler") = scaler.state_dict();
  ck.section("rng") = ember::rng_state();
  ck.metadata = {{"epoch", std::to_string(at.epoch)},
                 {"step_in_epoch", std::to_string(at.step_in_epoch)},
                 {"global_step", std::to_string(at.global_step)},
                 {"dataset", o.dataset},
                 {"batch_size", std::to_string(o.batch_size)},
                 {"world_size", std::to_string(world_size)},
                 {"seed", std::to_string(o.seed)}};
  const auto dir = std::filesystem::path(o.checkpoint).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  ember::save_checkpoint(o.checkpoint, ck);
}

int64_t metadata_int(const ember::Checkpoint& ck, const std::string& key, const std::string& path) {
  const auto it = ck.metadata.find(key);
  EMBER_CHECK(it != ck.metadata.end(), "train --resume: checkpoint '", path, "' has no '", key,
              "' entry");
  return ember::parse_counter(it->second, "train --resume: checkpoint metadata", key, {}, path);
}

// Every rank loads the same checkpoint (rank 0's). The batch per rank and the
// world size fix the data order, so a resume must keep both.
Position restore(const Options& o, Net& model, ember::optim::Optimizer& optimizer,
                 ember::amp::GradScaler& scaler, int world_size) {
  EMBER_CHECK(std::filesystem::exists(o.checkpoint), "train --resume: no checkpoint at '",
              o.checkpoint, "'");
  ember::Checkpoint ck = ember::load_checkpoint(o.checkpoint);
  ck.metadata.emplace("world_size", "1");  // checkpoints from before distributed runs
  const std::map<std::string, std::string> wanted = {
      {"dataset", o.dataset},
      {"batch_size", std::to_string(o.batch_size)},
      {"world_size", std::to_string(world_size)}};
  for (const auto& [key, want] : wanted) {
    const auto it = ck.metadata.find(key);
    EMBER_CHECK(it != ck.metadata.end() && it->second == want, "train --resume: checkpoint '",
                o.checkpoint, "' was made with ", key, " ",
                it == ck.metadata.end() ? "?" : it->second, ", this run has ", want);
  }
  ember::load_state_dict(*model, ck.section("model"), /*strict=*/true, o.checkpoint);
  optimizer.load_state_dict(ck.section("optimizer"));
  if (scaler.is_enabled() && ck.has_section("scaler")) scaler.load_state_dict(ck.section("scaler"));
  ember::set_rng_state(ck.section("rng"));
  return {metadata_int(ck, "epoch", o.checkpoint), metadata_int(ck, "step_in_epoch", o.checkpoint),
          metadata_int(ck, "global_step", o.checkpoint)};
}

struct Evaluation {
  double loss = 0, accuracy = 0;
};

// A batch on the model's device. On CUDA the loaders pin their batches, so the
// copy is queued without a host wait; the batch's pinned block is held until
// the copy completes, and the step's kernels queue behind it on the same stream.
Tensor to_device(const Tensor& batch_part, ember::Device device) {
  return batch_part.to(device, /*non_blocking=*/device.is_cuda());
}

// The dtype of --amp's autocast regions (nullopt: off).
std::optional<ember::ScalarType> amp_dtype(const Options& o) {
  if (o.amp == "off") return std::nullopt;
  return o.amp == "bf16" ? ember::kBFloat16 : ember::kHalf;
}

Evaluation evaluate(const Options& o, const Data& d, Net& model, data::DataLoader& loader,
                    ember::Device device, int64_t limit) {
  ember::NoGradGuard no_grad;
  model->eval();
  double loss_sum = 0;
  int64_t correct = 0, seen = 0, step = 0;
  for (data::Batch& batch : loader) {
    if (limit > 0 && step++ >= limit) break;
    const Tensor x = (*d.normalize)(to_device(batch.data, device));
    const Tensor y = to_device(batch.target, device);
    Tensor logits;
    {
      const ember::autocast::AutocastGuard region(device.type(), amp_dtype(o), o.amp != "off");
      logits = model(x);
    }
    loss_sum += F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(ember::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
    seen += y.size(0);
  }
  model->train();
  return {seen ? loss_sum / double(seen) : 0.0, seen ? double(correct) / double(seen) : 0.0};
}

}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

RunResult run(const Options& o, std::ostream& out) {
  if (o.threads > 0) ember::set_num_threads(int(o.threads));
  ember::manual_seed(o.seed);
  ember::backends::cpu::set_benchmark(o.benchmark);
  ember::backends::cudnn::set_benchmark(o.benchmark);
  // Under ember-run: one rank of WORLD_SIZE (replicas.h). Rank 0 alone
  // prints, logs, evaluates and checkpoints; the others print only errors.
  Replicas replicas(choose_device(o.device));
  const ember::Device device = replicas.device();
  const int world = replicas.world_size();
  std::ostream silent(nullptr);
  std::ostream& log = replicas.is_main() ? out : silent;
  const bool augment = o.augment.value_or(o.dataset == "cifar10");

  const Data d = load_data(o);
  data::DataLoader train_loader(d.train,
                                replicas.shard(data::DataLoaderOptions()
                                                   .batch_size(o.batch_size)
                                                   .dtype(ember::kByte)
                                                   .num_workers(int(o.num_workers))
                                                   .pin_memory(device.is_cuda()),
                                               o.seed),
                                make_transform(d, augment));
  data::DataLoader test_loader(d.test,
                               data::DataLoaderOptions()
                                   .batch_size(1000)
                                   .dtype(ember::kByte)
                                   .num_workers(int(o.num_workers))
                                   .pin_memory(device.is_cuda()),
                               make_transform(d, false));

  Net model(d.channels);
  model->to(device);
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(o.lr));
  EMBER_CHECK(o.amp != "fp16" || device.is_cuda(), "train --amp fp16: the CPU computes in bfloat16 "
              "only (use --amp bf16), and this run is on ", device);
  // float16 gradients underflow without loss scaling; bfloat16 has float32's range.
  ember::amp::GradScaler scaler(ember::amp::GradScalerOptions().enabled(o.amp == "fp16"));
  Position at;
  if (o.resume) at = restore(o, model, optimizer, scaler, world);
  replicas.wrap(model);  // the same parameters: DDP broadcasts rank 0's into them

  std::optional<ember::utils::CsvLogger> csv;
  std::optional<ember::utils::tensorboard::SummaryWriter> board;
  if (replicas.is_main()) {
    std::filesystem::create_directories(o.log_dir);
    csv.emplace((std::filesystem::path(o.log_dir) / "metrics.csv").string(),
                std::vector<std::string>{"epoch", "train_loss", "test_loss", "test_accuracy", "lr",
                                         "images_per_second"},
                /*append=*/o.resume);
    board.emplace(o.log_dir);
  }

  std::ostringstream batch;
  batch << "batch " << o.batch_size;
  if (replicas.distributed()) batch << " per rank × " << world << " ranks";
  log << "ember sample trainer: " << o.dataset << " (" << d.train->size() << " train, "
      << d.test->size() << " test images), device " << device << ", "
      << ember::get_num_threads() << (ember::get_num_threads() == 1 ? " thread, " : " threads, ")
      << batch.str() << ", Adam lr " << o.lr
      << ", augment " << (augment ? "on" : "off") << ", conv benchmark "
      << (o.benchmark ? "on" : "off") << "\n";
  if (o.resume)
    log << "resumed from " << o.checkpoint << " at epoch " << at.epoch + 1 << ", step "
        << at.step_in_epoch << "\n";

  RunResult result;
  const bool tty = ember::utils::ProgressBar::is_terminal(log);
  for (int64_t epoch = at.epoch; epoch < o.epochs; ++epoch) {
    model->train();
    train_loader.set_epoch(epoch);
    int64_t steps = train_loader.size();
    if (o.limit_train_batches > 0) steps = std::min(steps, o.limit_train_batches);
    std::ostringstream title;
    title << "epoch " << epoch + 1 << "/" << o.epochs;
    ember::utils::ProgressBar bar(steps, title.str(), log, tty);
    bar.set_print_every(o.log_every);

    const double epoch_start = now_seconds();
    double loss_sum = 0, compute_total = 0, wait_total = 0;
    int64_t step = 0, trained = 0, images = 0;
    bool stop = false;
    for (data::Batch& batch : train_loader) {
      if (step >= steps) break;
      if (step < at.step_in_epoch) {  // trained before the interruption
        ++step;
        continue;
      }
      const double wait = train_loader.last_wait_seconds();
      const double t0 = now_seconds();
      const Tensor x = (*d.normalize)(to_device(batch.data, device));
      const Tensor y = to_device(batch.target, device);
      Tensor loss;
      {
        // The loss itself is float32 (autocast's list).
        const ember::autocast::AutocastGuard region(device.type(), amp_dtype(o), o.amp != "off");
        loss = F::cross_entropy(replicas.forward(x), y);
      }
      optimizer.zero_grad();
      scaler.scale(loss).backward();  // distributed: the gradients are averaged across ranks here
      scaler.step(optimizer);
      scaler.update();
      const double loss_value = loss.item<double>();  // the one host sync of a step
      const double compute = now_seconds() - t0;

      ++step;
      ++trained;
      ++at.global_step;
      loss_sum += loss_value;
      compute_total += compute;
      wait_total += wait;
      // Every rank reads as many images per step (DistributedSampler pads).
      images += y.size(0) * world;
      bar.add_time(compute, wait);
      bar.update(step, {{"loss", loss_sum / double(trained)}}, y.size(0) * world);
      if (board && at.global_step % o.log_every == 0)
        board->add_scalar("train/loss", loss_value, at.global_step);
      if (o.stop_after > 0 && at.global_step >= o.stop_after) g_stop_requested = true;
      stop = replicas.any(g_stop_requested);  // the same step on every rank
      if (stop) break;
    }
    if (stop) {
      g_stop_requested = false;
      bar.close();
      if (replicas.is_main()) save(o, model, optimizer, scaler, {epoch, step, at.global_step}, world);
      replicas.barrier();  // no rank exits before the checkpoint is written
      log << "interrupted: checkpoint saved to " << o.checkpoint << " (epoch " << epoch + 1
          << ", step " << step << "); continue with --resume\n";
      result.interrupted = true;
      return result;
    }
    bar.close();
    at.step_in_epoch = 0;

    const double seconds = now_seconds() - epoch_start;
    EpochResult r;
    r.epoch = epoch + 1;
    r.train_loss = trained ? loss_sum / double(trained) : 0.0;
    r.seconds = seconds;
    r.images_per_second = seconds > 0 ? double(images) / seconds : 0.0;
    r.compute_efficiency =
        compute_total + wait_total > 0 ? compute_total / (compute_total + wait_total) : 1.0;
    if (!replicas.is_main()) {  // the others go on and wait for rank 0 in their next collective
      result.epochs.push_back(r);
      continue;
    }
    // The module itself, not the DDP wrapper: evaluation issues no collective.
    const Evaluation eval = evaluate(o, d, model, test_loader, device, o.limit_test_batches);
    r.test_loss = eval.loss;
    r.test_accuracy = eval.accuracy;
    result.epochs.push_back(r);

    save(o, model, optimizer, scaler, {epoch + 1, 0, at.global_step}, world);
    const double lr = optimizer.param_groups()[0].options().get_lr();
    csv->log(at.global_step, {{"epoch", double(r.epoch)},
                              {"train_loss", r.train_loss},
                              {"test_loss", r.test_loss},
                              {"test_accuracy", r.test_accuracy},
                              {"lr", lr},
                              {"images_per_second", r.images_per_second}});
    board->add_scalar("test/loss", r.test_loss, at.global_step);
    board->add_scalar("test/accuracy", r.test_accuracy, at.global_step);
    board->add_scalar("train/lr", lr, at.global_step);
    board->add_scalar("train/images_per_second", r.images_per_second, at.global_step);
    board->flush();
    log << std::fixed << std::setprecision(4) << "epoch " << r.epoch << "/" << o.epochs
        << ": train loss " << r.train_loss << ", test loss " << r.test_loss << ", test accuracy "
        << std::setprecision(2) << 100.0 * r.test_accuracy << "%, " << std::setprecision(1)
        << r.seconds << " s, " << std::setprecision(0) << r.images_per_second << " images/s, "
        << "compute efficiency " << std::setprecision(0) << 100.0 * r.compute_efficiency
        << "%, checkpoint " << o.checkpoint << "\n"
        << std::defaultfloat;
  }
  replicas.barrier();  // the others wait for rank 0's last evaluation and checkpoint
  return result;
}

}  // namespace train
