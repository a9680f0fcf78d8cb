#pragma once
// ember::distributed: torch.distributed's API over a default process group.
// #include <ember/distributed/distributed.h> and link ember::distributed.
// docs/distributed.md says what exists and how it differs from PyTorch's.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed {

// Joins this process to the default group. backend: "gloo" (CPU tensors) or
// "nccl" (CUDA tensors, in builds with CUDA). init_method: "env://"
// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, as torchrun and
// ember-run set them; world_size and rank, when given, override the
// variables) or "file://DIR" (one machine: a directory every rank shares,
// fresh per job; world_size and rank required). timeout: the default of every
// collective. EMBER_DISTRIBUTED_DEBUG=1 turns on collective fingerprints.
void init_process_group(const std::string& backend, const std::string& init_method = "env://",
                        int world_size = -1, int rank = -1,
                        std::chrono::milliseconds timeout = std::chrono::minutes(5));
bool is_initialized();
// Waits for nothing: collectives still queued finish first.
void destroy_process_group();

int get_rank();
int get_world_size();
// LOCAL_RANK under env:// (the rank when unset); the rank under file://.
int get_local_rank();
std::string get_backend();
std::shared_ptr<ProcessGroup> default_group();

// Each returns the collective's Work, already waited for unless async_op.
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false);
std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op = false);
// out: one tensor per rank, each like `tensor`; out[r] receives rank r's.
std::shared_ptr<Work> all_gather(std::vector<Tensor>& out, const Tensor& tensor, bool async_op = false);
std::shared_ptr<Work> barrier(bool async_op = false);

}  // namespace ember::distributed
