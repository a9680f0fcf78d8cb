#pragma once
// ProcessGroupGloo: collectives on CPU tensors over Gloo's TCP transport.
// Note [One worker per group]: every call checks its arguments on the
// caller's thread, takes the next sequence number and queues the collective
// for the group's one worker thread, which runs them in order (Gloo's
// collectives block). A caller such as DDP's reducer, issuing allreduces from
// autograd hooks during backward, is never blocked by the network.
#include <chrono>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"

namespace gloo::rendezvous {
class Store;
}

namespace ember::distributed {

class ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::minutes(5);
    // Where this rank listens for its peers: a host name or address, or a
    // network interface (iface wins when set).
    std::string hostname = "127.0.0.1";
    std::string iface;
    // Fingerprint every collective and compare it across ranks before running
    // it (EMBER_DISTRIBUTED_DEBUG=1, Note [Collective fingerprints]).
    bool debug = false;
    // This group's keys in the store: "<prefix>/...". Unique per group.
    std::string prefix = "ember/pg";
  };

  // Connects to every other rank through the store (all ranks call this with
  // the same store, size and prefix). Blocks until connected or the timeout.
  ProcessGroupGloo(std::shared_ptr<gloo::rendezvous::Store> store, int rank, int size,
                   Options options);
  // Runs what is still queued, then stops the worker.
  ~ProcessGroupGloo() override;

  std::string backend_name() const override { return "gloo"; }
  bool debug() const;

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, ReduceOp op = ReduceOp::SUM) override;
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, int src = 0) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                  std::vector<Tensor>& inputs) override;
  std::shared_ptr<Work> barrier() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
