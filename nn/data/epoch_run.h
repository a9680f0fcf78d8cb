#pragma once
// Internal to DataLoader: one epoch's batches, built on the caller's thread
// (no workers) or by worker threads into a bounded window of finished
// batches that the consumer takes in order.
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/nn/data/data_loader.h"

namespace ember::data::detail {

struct WaitClock {
  std::mutex mutex;
  double total = 0, last = 0;
  void add(double seconds) {
    std::lock_guard<std::mutex> lock(mutex);
    total += seconds;
    last = seconds;
  }
};

struct EpochPlan {
  std::shared_ptr<const Dataset> dataset;
  std::shared_ptr<const Transform> transform;  // null: none
  DimVector example_shape;                     // after the transform
  std::vector<int64_t> order;                  // dataset indices in epoch order
  int64_t batch_size = 1, num_batches = 0;
  bool pin_memory = false;  // batches in pinned host memory
  ScalarType dtype = kFloat;  // of the batches' data: float32, or uint8 pixels
  uint64_t seed = 0, epoch = 0;
};

// Builds batch b of the plan: writes each example straight into the batch tensor.
Batch build_batch(const EpochPlan& plan, int64_t b);

class EpochRun {
 public:
  EpochRun(EpochPlan plan, int num_workers, std::shared_ptr<WaitClock> wait);
  ~EpochRun();  // stops and joins the workers
  EpochRun(const EpochRun&) = delete;
  EpochRun& operator=(const EpochRun&) = delete;

  bool done() const { return next_ >= plan_.num_batches; }
  Batch next();  // the next batch in order; rethrows a worker's exception

 private:
  struct Slot {
    Batch batch;
    std::exception_ptr error;
  };
  void work(int worker);

  const EpochPlan plan_;
  const int num_workers_;
  const int64_t window_;  // batches the workers may run ahead of the consumer
  std::shared_ptr<WaitClock> wait_;
  int64_t next_ = 0;  // the batch the consumer takes next

  std::mutex mutex_;
  std::condition_variable space_;  // a worker may build further
  std::condition_variable ready_;  // a batch arrived
  std::map<int64_t, Slot> finished_;
  int64_t consumed_ = 0;  // guarded copy of next_ for the workers
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ember::data::detail
