#pragma once
// ProcessGroupNCCL: collectives on CUDA tensors through NCCL, built only with
// the CUDA backend. Note [NCCL on ember's stream]: ember runs all CUDA work on
// each device's legacy default stream (docs/gpu.md), and so do these
// collectives: a call queues the collective there and returns; ops issued
// after it see its result in stream order, and the Work it returns is
// complete once queued (as c10d's wait(), which only orders the streams).
// The communicator is made at the first collective, on that tensor's device,
// with NCCL's unique id passed from rank 0 through the store.
#include <chrono>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"

namespace gloo::rendezvous {
class Store;
}

namespace ember::distributed {

class ProcessGroupNCCL : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::minutes(5);
    std::string prefix = "ember/pg";  // this group's keys in the store
  };

  ProcessGroupNCCL(std::shared_ptr<gloo::rendezvous::Store> store, int rank, int size, Options options);
  ~ProcessGroupNCCL() override;

  std::string backend_name() const override { return "nccl"; }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, ReduceOp op = ReduceOp::SUM) override;
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, int src = 0) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                  std::vector<Tensor>& inputs) override;
  // An allreduce of one element, then a wait for the device.
  std::shared_ptr<Work> barrier() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
