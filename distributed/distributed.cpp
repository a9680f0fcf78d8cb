#include "ember/distributed/distributed.h"

#include <cstdlib>
#include <mutex>

#include "ember/core/error.h"
#include "ember/distributed/file_store.h"
#include "ember/distributed/init_methods.h"
#include "ember/distributed/process_group_gloo.h"
#ifdef EMBER_DISTRIBUTED_NCCL
#include "ember/distributed/process_group_nccl.h"
#endif

namespace ember::distributed {

namespace {

struct DefaultGroup {
  std::mutex mutex;
  std::shared_ptr<ProcessGroup> group;
  int local_rank = -1;
  // Each init gets its own keys, so that a later init over the same store
  // (or file:// directory) does not read the earlier one's.
  int generation = 0;
};

DefaultGroup& state() {
  static DefaultGroup s;
  return s;
}

std::shared_ptr<ProcessGroup> current(const char* caller) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.group != nullptr, caller,
              ": the default process group is not initialized; call init_process_group first");
  return s.group;
}

bool debug_from_environment() {
  const char* value = std::getenv("EMBER_DISTRIBUTED_DEBUG");
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

constexpr const char* kFilePrefix = "file://";

}  // namespace

void init_process_group(const std::string& backend, const std::string& init_method, int world_size,
                        int rank, std::chrono::milliseconds timeout) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.group == nullptr, "init_process_group: the default process group is already initialized "
              "(rank ", s.group ? s.group->rank() : -1, "); call destroy_process_group first");
  EMBER_CHECK(backend == "gloo" || backend == "nccl", "init_process_group: unknown backend '", backend,
              "' (gloo or nccl)");
#if defined(EMBER_WITH_CUDA) && !defined(EMBER_DISTRIBUTED_NCCL)
  EMBER_CHECK(backend != "nccl", "init_process_group: backend nccl: ember was built with CUDA but "
              "without NCCL (libnccl was not found next to the CUDA toolkit); use gloo (CPU tensors)");
#elif !defined(EMBER_WITH_CUDA)
  EMBER_CHECK(backend != "nccl", "init_process_group: backend nccl needs CUDA, and ember was built "
              "without CUDA; use gloo (CPU tensors)");
#endif

  std::shared_ptr<gloo::rendezvous::Store> store;
  ProcessGroupGloo::Options options;
  options.timeout = timeout;
  options.debug = debug_from_environment();
  options.prefix = "ember/default_pg/" + std::to_string(s.generation);
  int local_rank = rank;
  if (init_method == "env://") {
    const EnvConfig config = parse_env_config(world_size, rank);
    world_size = config.world_size;
    rank = config.rank;
    local_rank = config.local_rank;
    options.hostname = local_address_towards(config.master_addr);
    store = make_env_store(config, timeout);
  } else if (init_method.rfind(kFilePrefix, 0) == 0) {
    const std::string directory = init_method.substr(std::string(kFilePrefix).size());
    EMBER_CHECK(!directory.empty(), "init_process_group(", init_method, "): no directory after file://");
    EMBER_CHECK(world_size > 0 && rank >= 0 && rank < world_size, "init_process_group(", init_method,
                "): needs world_size >= 1 and rank in [0, world_size); got world_size ", world_size,
                ", rank ", rank);
    local_rank = rank;
    store = std::make_shared<FileStore>(directory, timeout);
  } else {
    EMBER_ERROR("init_process_group: unknown init_method '", init_method, "' (env:// or file://DIR)");
  }
#ifdef EMBER_DISTRIBUTED_NCCL
  if (backend == "nccl") {
    s.group = std::make_shared<ProcessGroupNCCL>(std::move(store), rank, world_size,
                                                 ProcessGroupNCCL::Options{timeout, options.prefix});
  }
#endif
  if (backend == "gloo")
    s.group = std::make_shared<ProcessGroupGloo>(std::move(store), rank, world_size, std::move(options));
  s.local_rank = local_rank;
  ++s.generation;
}

bool is_initialized() {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.group != nullptr;
}

void destroy_process_group() {
  auto& s = state();
  std::shared_ptr<ProcessGroup> group;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    EMBER_CHECK(s.group != nullptr, "destroy_process_group: the default process group is not "
                "initialized; call init_process_group first");
    group = std::move(s.group);
    s.local_rank = -1;
  }
  group.reset();  // outside the lock: it may wait for queued collectives
}

int get_rank() { return current("get_rank")->rank(); }
int get_world_size() { return current("get_world_size")->size(); }
std::string get_backend() { return current("get_backend")->backend_name(); }
std::shared_ptr<ProcessGroup> default_group() { return current("default_group"); }

int get_local_rank() {
  current("get_local_rank");
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.local_rank;
}

namespace {
std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (!async_op) work->wait();
  return work;
}
}  // namespace

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, bool async_op) {
  auto group = current("all_reduce");
  std::vector<Tensor> tensors{tensor};
  return finish(group->allreduce(tensors, op), async_op);
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op) {
  auto group = current("broadcast");
  std::vector<Tensor> tensors{tensor};
  return finish(group->broadcast(tensors, src), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& out, const Tensor& tensor, bool async_op) {
  auto group = current("all_gather");
  std::vector<std::vector<Tensor>> outputs{out};
  std::vector<Tensor> inputs{tensor};
  return finish(group->allgather(outputs, inputs), async_op);
}

std::shared_ptr<Work> barrier(bool async_op) {
  return finish(current("barrier")->barrier(), async_op);
}

}  // namespace ember::distributed
