#pragma once
// DataLoader: batches of a Dataset, shuffled reproducibly, built on the
// caller's thread or by background workers.
//   DataLoader loader(FashionMNIST(), DataLoaderOptions().batch_size(64).shuffle(true).seed(1),
//                     Compose(RandomCrop(28, 4), RandomHorizontalFlip()));
//   loader.set_epoch(epoch);         // optional: begin() advances the epoch by itself
//   for (Batch& batch : loader) ...  // batch.data (N, C, H, W) float32, batch.target (N) int64
//
// dtype(kByte) (ember's own option): batches of the images' uint8 pixels,
// unscaled, for NormalizePixels to convert on the model's device (a quarter of
// the host-to-device bytes); the transforms must have a uint8 form (the
// geometric ones; Normalize has none). The image datasets provide the bytes.
//
// Order: epoch e's shuffle and the random transforms of example i in epoch e
// are pure functions of (seed, e, i) (Note [Reproducible data order] in
// example_rng.h), so a run resumed at epoch e sees the same batches, and the
// batches do not depend on num_workers.
//
// sampler: with a DistributedSampler (distributed_sampler.h) the epoch's order
// is this rank's share, sampler.indices(dataset size, epoch), and size()
// counts its batches; the sampler shuffles (shuffle(true) on the options too
// is an Error), and the options' seed still keys the random transforms.
//
// num_workers > 0: worker w builds batches w, w + W, w + 2W, ... ahead of the
// consumer, at most 2 * W batches ahead (prefetch factor 2); batches are
// delivered in order. Breaking out of the loop stops and joins the workers.
//
// pin_memory: batches are built in pinned (page-locked) host memory
// (kernels/cuda/pinned_memory.h), so batch.data.to(device, /*non_blocking=*/true)
// is an asynchronous copy. Without a CUDA device (or the CUDA backend) the
// constructor warns on stderr and batches stay in pageable memory, as PyTorch.
#include <concepts>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>

#include "ember/nn/data/dataset.h"
#include "ember/nn/data/distributed_sampler.h"
#include "ember/nn/data/example.h"
#include "ember/nn/data/transforms.h"

namespace ember::data {

class DataLoaderOptions {
 public:
  // Chained setters, as libtorch's: DataLoaderOptions().batch_size(64).shuffle(true).
  DataLoaderOptions& batch_size(int64_t v) { return set(batch_size_, v); }
  DataLoaderOptions& shuffle(bool v) { return set(shuffle_, v); }
  DataLoaderOptions& seed(uint64_t v) { return set(seed_, v); }
  DataLoaderOptions& drop_last(bool v) { return set(drop_last_, v); }
  DataLoaderOptions& num_workers(int v) { return set(num_workers_, v); }
  DataLoaderOptions& pin_memory(bool v) { return set(pin_memory_, v); }
  DataLoaderOptions& dtype(ScalarType v) { return set(dtype_, v); }  // kFloat or kByte
  DataLoaderOptions& sampler(DistributedSampler v) {
    sampler_ = std::move(v);
    return *this;
  }
  int64_t batch_size() const { return batch_size_; }
  bool shuffle() const { return shuffle_; }
  uint64_t seed() const { return seed_; }
  bool drop_last() const { return drop_last_; }
  int num_workers() const { return num_workers_; }
  bool pin_memory() const { return pin_memory_; }
  ScalarType dtype() const { return dtype_; }
  const std::optional<DistributedSampler>& sampler() const { return sampler_; }

 private:
  template <typename T>
  DataLoaderOptions& set(T& field, T value) {
    field = value;
    return *this;
  }
  int64_t batch_size_ = 1;
  bool shuffle_ = false;
  uint64_t seed_ = 0;
  bool drop_last_ = false;
  int num_workers_ = 0;
  bool pin_memory_ = false;
  ScalarType dtype_ = kFloat;
  std::optional<DistributedSampler> sampler_;  // none: the whole dataset
};

namespace detail {
class EpochRun;
struct WaitClock;
}  // namespace detail

class DataLoader {
 public:
  // transform: applied to each example (its data must then be an image (C, H, W)); may be null.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {},
             std::shared_ptr<const Transform> transform = nullptr);
  template <typename D, typename T = Compose>
    requires std::derived_from<D, Dataset> && std::derived_from<T, Transform>
  DataLoader(D dataset, DataLoaderOptions options = {}, T transform = Compose())
      : DataLoader(std::make_shared<const D>(std::move(dataset)), std::move(options),
                   std::make_shared<const T>(std::move(transform))) {}
  template <typename T>
    requires std::derived_from<T, Transform>
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options, T transform)
      : DataLoader(std::move(dataset), std::move(options),
                   std::make_shared<const T>(std::move(transform))) {}
  ~DataLoader();

  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Batch& operator*() { return batch_; }
    Batch* operator->() { return &batch_; }
    Iterator& operator++();
    bool operator==(std::default_sentinel_t) const { return run_ == nullptr; }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::EpochRun> run);
    void fetch();
    std::shared_ptr<detail::EpochRun> run_;  // null once the epoch is done
    Batch batch_;
  };

  // Starts epoch epoch() and advances the counter, so successive loops see
  // successive epochs. The returned iterator owns the epoch's workers.
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }

  // The epoch the next begin() starts (0 at first).
  int64_t epoch() const { return epoch_; }
  void set_epoch(int64_t epoch);
  int64_t size() const;  // batches per epoch (of this rank's share, with a sampler)
  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

  // Seconds the consumer has spent waiting for batches: building them itself
  // (num_workers 0) or blocked on the workers. Total since construction, and
  // for the last batch. Compute efficiency = compute / (compute + wait).
  double wait_seconds() const;
  double last_wait_seconds() const;

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<const Transform> transform_;  // null: none
  DataLoaderOptions options_;
  DimVector example_shape_;  // after the transform
  int64_t epoch_ = 0;
  std::shared_ptr<detail::WaitClock> wait_;
};

}  // namespace ember::data
