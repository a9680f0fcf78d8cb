#include "ember/distributed/process_group.h"

#include "ember/core/error.h"

namespace ember::distributed {

namespace {
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

void Work::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [this] { return completed_; });
  if (error_) std::rethrow_exception(error_);
}

void Work::mark_started() { start_ns_.store(now_ns(), std::memory_order_release); }

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EMBER_INTERNAL_ASSERT(!completed_, "Work finished twice");
    end_ns_.store(now_ns(), std::memory_order_release);
    if (start_ns_.load(std::memory_order_relaxed) == 0)
      start_ns_.store(end_ns_.load(std::memory_order_relaxed), std::memory_order_release);
    error_ = std::move(error);
    completed_ = true;
  }
  done_cv_.notify_all();
}

std::shared_ptr<Work> completed_work() {
  auto work = std::make_shared<Work>();
  work->mark_started();
  work->finish();
  return work;
}

ProcessGroup::ProcessGroup(int rank, int size, std::chrono::milliseconds timeout)
    : rank_(rank), size_(size), timeout_(timeout) {
  EMBER_CHECK(size >= 1 && rank >= 0 && rank < size, "ProcessGroup: rank ", rank,
              " is not in [0, ", size, ") (world size ", size, ")");
  EMBER_CHECK(timeout.count() > 0, "ProcessGroup: the timeout must be positive, got ",
              timeout.count(), " ms");
}

}  // namespace ember::distributed
