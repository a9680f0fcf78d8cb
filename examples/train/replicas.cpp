#include "replicas.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#if EMBER_TRAIN_DISTRIBUTED
#include <ember/distributed/distributed.h>
#include <ember/distributed/distributed_data_parallel.h>
#endif

namespace train {

namespace {

// WORLD_SIZE, or 1 when unset: a single process. init_process_group checks
// the rest of env:// (MASTER_ADDR, MASTER_PORT, RANK) and names what is wrong.
int world_size_from_environment() {
  const char* text = std::getenv("WORLD_SIZE");
  if (!text || !*text) return 1;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  EMBER_CHECK(*end == '\0' && errno == 0 && v >= 1 && v <= (1 << 20),
              "WORLD_SIZE must be a positive integer, got '", text, "'");
  return int(v);
}

}  // namespace

#if EMBER_TRAIN_DISTRIBUTED

namespace dist = ember::distributed;

struct Replicas::Group {
  explicit Group(const ember::Device& device) {
    dist::init_process_group(device.is_cuda() ? "nccl" : "gloo", "env://");
  }
  ~Group() {
    ddp.reset();
    try {
      dist::destroy_process_group();
    } catch (const std::exception&) {
      // Leaving a broken group: the error that broke it is already on its way out.
    }
  }
  std::optional<ember::nn::parallel::DistributedDataParallel<Net>> ddp;
};

Replicas::Replicas(ember::Device device) : world_size_(world_size_from_environment()), device_(device) {
  if (world_size_ == 1) return;
  group_ = std::make_unique<Group>(device);
  rank_ = dist::get_rank();
  world_size_ = dist::get_world_size();
  // One device per rank on a node, as torchrun's convention.
  if (device.is_cuda()) device_ = ember::Device(ember::kCUDA, dist::get_local_rank());
}

void Replicas::wrap(Net model) {
  model_ = model;
  if (group_) group_->ddp.emplace(model);
}

ember::Tensor Replicas::forward(const ember::Tensor& x) {
  return group_ ? (*group_->ddp)(x) : model_(x);
}

bool Replicas::any(bool local) {
  if (!group_) return local;
  ember::Tensor flag = ember::full({1}, int64_t(local ? 1 : 0),
                                   ember::TensorOptions().dtype(ember::kLong).device(device_));
  dist::all_reduce(flag, dist::ReduceOp::MAX);
  return flag.item<int64_t>() != 0;
}

void Replicas::barrier() {
  if (group_) dist::barrier();
}

#else  // built without ember::distributed: one replica only

struct Replicas::Group {};

Replicas::Replicas(ember::Device device) : world_size_(world_size_from_environment()), device_(device) {
  EMBER_CHECK(world_size_ == 1, "WORLD_SIZE is ", world_size_,
              " but ember was built without distributed support (ember::distributed needs Gloo: "
              "install libgloo-dev and reconfigure with -DEMBER_DISTRIBUTED=ON)");
}

void Replicas::wrap(Net model) { model_ = model; }
ember::Tensor Replicas::forward(const ember::Tensor& x) { return model_(x); }
bool Replicas::any(bool local) { return local; }
void Replicas::barrier() {}

#endif

Replicas::~Replicas() = default;

ember::data::DataLoaderOptions Replicas::shard(ember::data::DataLoaderOptions options,
                                               uint64_t seed) const {
  if (!distributed()) return options.shuffle(true).seed(seed);
  // The sampler shuffles (the options' shuffle must be off); the options'
  // seed still keys the random transforms.
  return options.shuffle(false).seed(seed).sampler(
      ember::data::DistributedSampler(world_size_, rank_).shuffle(true).seed(seed));
}

}  // namespace train
