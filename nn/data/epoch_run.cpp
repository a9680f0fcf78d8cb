#include "ember/nn/data/epoch_run.h"

#include <algorithm>
#include <chrono>

#include "ember/core/ops/creation/factory.h"
#include "ember/nn/data/example_rng.h"

namespace ember::data::detail {

namespace {
constexpr int64_t kPrefetchPerWorker = 2;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

namespace {

// Example `index`'s data (float32, or uint8 pixels) into out; returns its label.
int64_t read_example(const Dataset& dataset, int64_t index, float* out) {
  return dataset.read_into(index, out);
}
int64_t read_example(const Dataset& dataset, int64_t index, uint8_t* out) {
  return dataset.read_bytes_into(index, out);
}

template <typename T>
void fill_batch(const EpochPlan& plan, int64_t first, int64_t n, T* data, int64_t* target,
                int64_t out_numel) {
  if (!plan.transform) {
    for (int64_t i = 0; i < n; ++i)
      target[i] = read_example(*plan.dataset, plan.order[first + i], data + i * out_numel);
    return;
  }
  // The transform reads the example from a per-thread scratch image.
  const DimVector in = plan.dataset->example_shape();
  const ImageShape in_shape{in[0], in[1], in[2]};
  thread_local std::vector<T> scratch;
  scratch.resize(static_cast<size_t>(in_shape.numel()));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = plan.order[first + i];
    target[i] = read_example(*plan.dataset, index, scratch.data());
    ExampleRng rng(plan.seed, plan.epoch, RngStream::kTransform, static_cast<uint64_t>(index));
    apply_transform(*plan.transform, scratch.data(), in_shape, data + i * out_numel, rng);
  }
}

}  // namespace

Batch build_batch(const EpochPlan& plan, int64_t b) {
  const int64_t first = b * plan.batch_size;
  const int64_t n =
      std::min<int64_t>(plan.batch_size, static_cast<int64_t>(plan.order.size()) - first);
  DimVector batch_shape{n};
  for (int64_t s : plan.example_shape) batch_shape.push_back(s);
  const TensorOptions host = TensorOptions().pinned_memory(plan.pin_memory);
  Batch batch{empty(batch_shape, host.dtype(plan.dtype)), empty({n}, host.dtype(kLong))};
  int64_t* target = batch.target.data_ptr<int64_t>();
  const int64_t out_numel = batch.data.numel() / std::max<int64_t>(n, 1);
  if (plan.dtype == kByte)
    fill_batch(plan, first, n, batch.data.data_ptr<uint8_t>(), target, out_numel);
  else
    fill_batch(plan, first, n, batch.data.data_ptr<float>(), target, out_numel);
  return batch;
}

EpochRun::EpochRun(EpochPlan plan, int num_workers, std::shared_ptr<WaitClock> wait)
    : plan_(std::move(plan)),
      num_workers_(num_workers),
      window_(kPrefetchPerWorker * num_workers),
      wait_(std::move(wait)) {
  for (int w = 0; w < num_workers_ && w < plan_.num_batches; ++w)
    workers_.emplace_back([this, w] { work(w); });
}

EpochRun::~EpochRun() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void EpochRun::work(int worker) {
  for (int64_t b = worker; b < plan_.num_batches; b += num_workers_) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_.wait(lock, [&] { return stop_ || b < consumed_ + window_; });
      if (stop_) return;
    }
    Slot slot;
    try {
      slot.batch = build_batch(plan_, b);
    } catch (...) {
      slot.error = std::current_exception();
    }
    const bool failed = slot.error != nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_.emplace(b, std::move(slot));
    }
    ready_.notify_all();
    if (failed) return;  // the consumer rethrows when it reaches batch b
  }
}

Batch EpochRun::next() {
  const auto start = std::chrono::steady_clock::now();
  const int64_t b = next_++;
  if (workers_.empty()) {
    Batch batch = build_batch(plan_, b);
    wait_->add(seconds_since(start));
    return batch;
  }
  Slot slot;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return finished_.count(b) > 0; });
    auto it = finished_.find(b);
    slot = std::move(it->second);
    finished_.erase(it);
    consumed_ = next_;
  }
  space_.notify_all();
  wait_->add(seconds_since(start));
  if (slot.error) std::rethrow_exception(slot.error);
  return std::move(slot.batch);
}

}  // namespace ember::data::detail
