#pragma once
// The trainer's replicas: who this process is in a data-parallel job started
// by ember-run (or torchrun-style by hand), and the few collective steps the
// trainer takes. WORLD_SIZE > 1 in the environment makes the process one rank
// of WORLD_SIZE: it joins the default group through env:// ("gloo" on the
// CPU, "nccl" on CUDA), and its model trains wrapped in
// DistributedDataParallel. Otherwise it is the only replica and every step
// here is local. Builds without ember::distributed refuse WORLD_SIZE > 1.
#include <memory>
#include <vector>

#include <ember/ember.h>

#include "model.h"

namespace train {

class Replicas {
 public:
  // Reads WORLD_SIZE and RANK; joins the group when WORLD_SIZE > 1 (the
  // group's timeout is the default 5 minutes, which also covers rank 0's
  // evaluation while the other ranks wait in their first collective after it).
  explicit Replicas(ember::Device device);
  ~Replicas();  // leaves the group
  Replicas(const Replicas&) = delete;
  Replicas& operator=(const Replicas&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  bool is_main() const { return rank_ == 0; }  // logs, evaluates, checkpoints
  bool distributed() const { return world_size_ > 1; }
  // cuda:LOCAL_RANK for a distributed CUDA run, `device` otherwise.
  ember::Device device() const { return device_; }

  // This rank's share of each epoch: a DistributedSampler shuffled by (seed,
  // epoch) when distributed; the options' own shuffle otherwise.
  ember::data::DataLoaderOptions shard(ember::data::DataLoaderOptions options, uint64_t seed) const;

  // Wraps the model for training (DDP broadcasts rank 0's weights and buffers).
  void wrap(Net model);
  // The training forward: through DDP when distributed, so that backward
  // averages the gradients across ranks.
  ember::Tensor forward(const ember::Tensor& x);

  // Whether any rank asks to stop: every rank gets the same answer at the same
  // step (an all-reduce MAX of one element), so none waits forever in a
  // collective the others never issue.
  bool any(bool local);
  // Returns when every rank has called it.
  void barrier();

 private:
  struct Group;  // the process group and the DDP wrapper (replicas.cpp)
  int rank_ = 0, world_size_ = 1;
  ember::Device device_;
  Net model_{nullptr};
  std::unique_ptr<Group> group_;
};

}  // namespace train
