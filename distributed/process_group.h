#pragma once
// The process group: a set of ranks that run collectives together, and the
// handle of one collective in flight. The shape follows PyTorch's c10d
// (ProcessGroup, Work) so that code written against torch.distributed's C++
// side reads the same; the backends are ProcessGroupGloo (CPU tensors) and,
// with CUDA, ProcessGroupNCCL.
#include "ember/core/tensor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ember::distributed {

enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };
const char* reduce_op_name(ReduceOp op);

// One collective in flight. The backend marks it started and finished; wait()
// blocks until then and rethrows the collective's ember::Error, if any.
class Work {
 public:
  virtual ~Work() = default;
  bool is_completed() const;
  void wait();
  // steady-clock times (ns since the clock's epoch) the collective started and
  // finished running; 0 until then. For tracing (e.g. overlap with backward).
  int64_t start_ns() const { return start_ns_.load(std::memory_order_acquire); }
  int64_t end_ns() const { return end_ns_.load(std::memory_order_acquire); }

  // Called by the backend, on whichever thread runs the collective.
  void mark_started();
  void finish(std::exception_ptr error = nullptr);

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  bool completed_ = false;
  std::exception_ptr error_;
  std::atomic<int64_t> start_ns_{0};
  std::atomic<int64_t> end_ns_{0};
};

// A Work that is already complete, for collectives that have nothing to do.
std::shared_ptr<Work> completed_work();

// Collectives are in place on the given tensors, as c10d's. Every call returns
// at once with a Work; the collectives of one group run in the order they were
// issued, and every rank must issue the same ones in the same order.
class ProcessGroup {
 public:
  ProcessGroup(int rank, int size, std::chrono::milliseconds timeout);
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend_name() const = 0;
  // The default timeout of every collective, set when the group was made.
  std::chrono::milliseconds timeout() const { return timeout_; }
  // Collectives issued so far; the next one gets this number.
  uint64_t sequence_number() const { return sequence_.load(std::memory_order_relaxed); }

  // One tensor per call: c10d's list form is for several devices per process,
  // which PyTorch itself has dropped; one process drives one device here.
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors, ReduceOp op = ReduceOp::SUM) = 0;
  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors, int src = 0) = 0;
  // outputs[0][r] receives rank r's inputs[0] (one input, world-size outputs).
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs,
                                          std::vector<Tensor>& inputs) = 0;
  virtual std::shared_ptr<Work> barrier() = 0;

 protected:
  // Takes the next sequence number; call it once the arguments are accepted.
  uint64_t next_sequence() { return sequence_.fetch_add(1, std::memory_order_relaxed); }

 private:
  const int rank_;
  const int size_;
  const std::chrono::milliseconds timeout_;
  std::atomic<uint64_t> sequence_{0};
};

}  // namespace ember::distributed
