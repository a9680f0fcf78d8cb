#include "ember/nn/data/data_loader.h"

#include <iostream>

#include "ember/core/error.h"
#include "ember/core/cuda/runtime.h"
#include "ember/nn/data/epoch_run.h"
#include "ember/nn/data/example_rng.h"

namespace ember::data {

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options,
                       std::shared_ptr<const Transform> transform)
    : dataset_(std::move(dataset)),
      transform_(std::move(transform)),
      options_(options),
      wait_(std::make_shared<detail::WaitClock>()) {
  EMBER_CHECK(dataset_ != nullptr, "DataLoader: got a null dataset");
  EMBER_CHECK(options_.batch_size() > 0, "DataLoader: batch_size must be positive, got ",
              options_.batch_size());
  EMBER_CHECK(options_.dtype() == kFloat || options_.dtype() == kByte,
              "DataLoader: dtype must be float32 or uint8, got ", dtype_name(options_.dtype()));
  EMBER_CHECK(options_.num_workers() >= 0, "DataLoader: num_workers must be >= 0, got ",
              options_.num_workers());
  EMBER_CHECK(!(options_.shuffle() && options_.sampler()),
              "DataLoader: shuffle(true) and a sampler exclude each other; the sampler "
              "shuffles (DistributedSampler::shuffle, on by default)");
  if (options_.pin_memory() && !cuda::is_available()) {
    std::cerr << "ember warning: DataLoader: pin_memory is set but no CUDA device is available ("
              << cuda::build_info() << "); batches stay in pageable memory\n";
    options_.pin_memory(false);
  }
  if (auto* compose = dynamic_cast<const Compose*>(transform_.get()); compose && compose->empty())
    transform_ = nullptr;  // nothing to apply: read examples straight into the batch
  example_shape_ = dataset_->example_shape();
  if (transform_) {
    EMBER_CHECK(example_shape_.size() == 3,
                "DataLoader: transforms work on images (C, H, W), "
                "but the dataset's examples have shape ",
                IntArrayRef(example_shape_));
    const ImageShape out =
        transform_->output_shape({example_shape_[0], example_shape_[1], example_shape_[2]});
    example_shape_ = {out.channels, out.height, out.width};
  }
}

DataLoader::~DataLoader() = default;

void DataLoader::set_epoch(int64_t epoch) {
  EMBER_CHECK(epoch >= 0, "DataLoader::set_epoch: epoch must be >= 0, got ", epoch);
  epoch_ = epoch;
}

int64_t DataLoader::size() const {
  const int64_t b = options_.batch_size();
  const int64_t n = options_.sampler() ? options_.sampler()->num_samples(dataset_->size())
                                       : dataset_->size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

double DataLoader::wait_seconds() const {
  std::lock_guard<std::mutex> lock(wait_->mutex);
  return wait_->total;
}

double DataLoader::last_wait_seconds() const {
  std::lock_guard<std::mutex> lock(wait_->mutex);
  return wait_->last;
}

DataLoader::Iterator DataLoader::begin() {
  detail::EpochPlan plan;
  plan.dataset = dataset_;
  plan.transform = transform_;
  plan.example_shape = example_shape_;
  plan.batch_size = options_.batch_size();
  plan.pin_memory = options_.pin_memory();
  plan.dtype = options_.dtype();
  plan.num_batches = size();
  plan.seed = options_.seed();
  plan.epoch = static_cast<uint64_t>(epoch_++);
  const int64_t n = dataset_->size();
  if (options_.sampler()) {
    plan.order = options_.sampler()->indices(n, plan.epoch);
  } else if (options_.shuffle()) {
    plan.order = epoch_permutation(n, plan.seed, plan.epoch);
  } else {
    plan.order.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) plan.order[i] = i;
  }
  return Iterator(
      std::make_shared<detail::EpochRun>(std::move(plan), options_.num_workers(), wait_));
}

DataLoader::Iterator::Iterator(std::shared_ptr<detail::EpochRun> run) : run_(std::move(run)) {
  fetch();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  fetch();
  return *this;
}

void DataLoader::Iterator::fetch() {
  EMBER_CHECK(run_ != nullptr, "DataLoader: advanced an iterator past the end of the epoch");
  if (run_->done()) {
    run_.reset();  // the last handle: stops and joins the workers
    batch_ = {};
    return;
  }
  batch_ = run_->next();
}

}  // namespace ember::data
